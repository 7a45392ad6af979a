import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Config } from '../../config.js';
import type { UiText } from '../../contracts/identity.js';
import { randomToken, sha256 } from '../../lib/crypto.js';
import { notifyChange } from '../../lib/events.js';
import { inTransaction } from '../../lib/tx.js';
import { emailChangedMail, verificationMail } from './courier/templates.js';
import { courierConfig, enqueueMail, mailAvailable } from './courier/index.js';
import { recordAuthEvent } from './events.js';
import { FLOW_CSRF_COOKIE } from './flows/csrf.js';
import { message } from './flows/messages.js';
import { insertFlow } from './flows/queries.js';
import { FlowValidationError } from './flows/types.js';
import { CODE_TTL_MINUTES, codeKey, issueCodes } from './one-time-codes.js';

type Db = pg.Pool | pg.PoolClient;

/**
 * A person's email addresses (identity_verifiable_addresses). Every identity's current email is a verified row
 * (0091_identity_courier.sql: backfilled, and kept by a trigger: invited users' emails came from an administrator);
 * a person's own change adds a pending row, and the identity's email changes only once that row is verified.
 */

export interface AddressRow {
  id: string;
  person_id: string;
  value: string;
  verified: boolean;
  status: string;
}

/** Makes sure the person has a row for the email (verified when `verified`); returns it. */
export async function ensureAddress(db: Db, personId: string, email: string, verified = true): Promise<AddressRow> {
  const { rows } = await db.query<AddressRow>(
    `INSERT INTO identity_verifiable_addresses (person_id, value, verified, verified_at, status)
     VALUES ($1, $2, $3, CASE WHEN $3 THEN now() END, CASE WHEN $3 THEN 'completed' ELSE 'pending' END)
     ON CONFLICT (person_id, lower(value)) DO UPDATE SET updated_at = now(),
       verified = identity_verifiable_addresses.verified OR EXCLUDED.verified,
       verified_at = coalesce(identity_verifiable_addresses.verified_at, EXCLUDED.verified_at),
       status = CASE WHEN identity_verifiable_addresses.verified OR EXCLUDED.verified THEN 'completed' ELSE identity_verifiable_addresses.status END
     RETURNING id, person_id, value, verified, status`,
    [personId, email, verified],
  );
  return rows[0];
}

/** The active person a verified address belongs to (recovery's only way in), or null. */
export async function findRecoveryAddress(db: Db, email: string): Promise<{ personId: string; value: string } | null> {
  const { rows } = await db.query<{ person_id: string; value: string }>(
    `SELECT a.person_id, a.value FROM identity_verifiable_addresses a
     JOIN identities i ON i.id = a.person_id JOIN people p ON p.id = a.person_id
     WHERE lower(a.value) = lower($1) AND a.verified AND i.state = 'active' AND p.deleted_at IS NULL
       AND lower(i.traits ->> 'email') = lower(a.value)
     LIMIT 1`,
    [email],
  );
  return rows[0] ? { personId: rows[0].person_id, value: rows[0].value } : null;
}

/** An address row of a live person, verified or not (verification may be asked again for either), or null. */
export async function findAddress(db: Db, email: string, personId?: string | null): Promise<AddressRow | null> {
  const { rows } = await db.query<AddressRow>(
    `SELECT a.id, a.person_id, a.value, a.verified, a.status FROM identity_verifiable_addresses a
     JOIN people p ON p.id = a.person_id
     WHERE lower(a.value) = lower($1) AND p.deleted_at IS NULL AND ($2::uuid IS NULL OR a.person_id = $2)
     ORDER BY a.verified, a.updated_at DESC LIMIT 1`,
    [email, personId ?? null],
  );
  return rows[0] ?? null;
}

async function emailTaken(db: Db, email: string, personId: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM identities WHERE lower(traits ->> 'email') = lower($1) AND id <> $2
     UNION ALL SELECT 1 FROM people WHERE lower(email) = lower($1) AND deleted_at IS NULL AND id <> $2 LIMIT 1`,
    [email, personId],
  );
  return rows.length > 0;
}

async function currentEmail(db: Db, personId: string): Promise<string | null> {
  const { rows } = await db.query<{ email: string | null }>(`SELECT traits ->> 'email' AS email FROM identities WHERE id = $1`, [personId]);
  return rows[0]?.email ?? null;
}

/** Sets the identity's email (the trigger mirrors it to people and keeps the verified address rows). */
async function applyEmail(db: pg.PoolClient, personId: string, email: string): Promise<void> {
  await db.query(`UPDATE identities SET traits = jsonb_set(traits, '{email}', to_jsonb($2::text)) WHERE id = $1`, [personId, email]);
  await notifyChange(db, { relation: 'identities', ids: [personId] });
  await notifyChange(db, { relation: 'people', ids: [personId] });
}

const taken = () => new FlowValidationError([message(4000007)], 'traits.email');

/** The verification link of a flow's token. */
export const verificationLink = (config: Config, flowId: string, token: string) =>
  `${config.publicUrl}/api/.ory/self-service/verification?flow=${flowId}&token=${encodeURIComponent(token)}`;

export interface EmailChange {
  /** true: a verification mail went out and the email changes once verified; false: applied now (no mail server). */
  pending: boolean;
  /** The verification flow the code is entered in (`/verification?flow=<id>`). */
  flowId?: string;
  messages: UiText[];
}

/**
 * A person asks for a new email (the settings flow, privileged session checked by the caller). With a mail server:
 * a pending address row, a verification flow and a mail with its code and link; the identity keeps its email until
 * the new one is verified (verifyAddress). Without one nobody could verify it, so it applies at once.
 */
export async function requestEmailChange(
  db: pg.Pool, req: FastifyRequest, personId: string, newEmail: string, cfg?: Config,
): Promise<EmailChange> {
  const config = cfg ?? courierConfig();
  if (!config) throw new Error('requestEmailChange: no config (register the courier module)');
  const email = newEmail.trim();
  const current = await currentEmail(db, personId);
  if (current && current.toLowerCase() === email.toLowerCase()) return { pending: false, messages: [] };
  if (await emailTaken(db, email, personId)) throw taken();
  if (!(await mailAvailable(db, config))) {
    await inTransaction(db, async (c) => {
      await applyEmail(c, personId, email);
      await recordAuthEvent(c, req, { personId, type: 'email_changed', details: { verified: false, reason: 'no mail server' } });
    });
    return { pending: false, messages: [message(1050001)] };
  }
  const key = await codeKey(db, config);
  const cookie = req.cookies?.[FLOW_CSRF_COOKIE];
  const flowId = await inTransaction(db, async (c) => {
    // one pending change at a time: an earlier request's address stops counting
    await c.query('DELETE FROM identity_verifiable_addresses WHERE person_id = $1 AND NOT verified AND lower(value) <> lower($2)', [personId, email]);
    await ensureAddress(c, personId, email, false);
    await c.query(`UPDATE identity_verifiable_addresses SET status = 'sent', updated_at = now() WHERE person_id = $1 AND lower(value) = lower($2)`, [personId, email]);
    const flow = await insertFlow(c, {
      type: 'verification', personId, sessionId: null, csrfHash: sha256(cookie ?? randomToken(32)), returnTo: null,
      requestedAal: null, refresh: false, requestUrl: `${config.publicUrl}/api/.ory/self-service/verification/browser`,
      minutes: config.AUTH_FLOW_MINUTES,
    });
    await c.query(`UPDATE auth_flows SET state = 'sent_email', data = $2 WHERE id = $1`, [flow.id, { email, change: true }]);
    const { code, token } = await issueCodes(c, key, { flowId: flow.id, personId, purpose: 'verification', address: email });
    await enqueueMail(c, config, verificationMail(email, code, verificationLink(config, flow.id, token), CODE_TTL_MINUTES));
    await recordAuthEvent(c, req, { personId, type: 'email_change_requested', details: { email } });
    return flow.id;
  });
  return { pending: true, flowId, messages: [message(1080003)] };
}

/**
 * Marks an address verified (a right code or link). When it is the person's pending new email, the identity's
 * email changes to it now and the old address gets a notice. Throws FlowValidationError when another person took
 * the address meanwhile.
 */
export async function verifyAddress(
  c: pg.PoolClient, config: Config, req: FastifyRequest | null, personId: string, address: string,
): Promise<{ changedFrom: string | null }> {
  await c.query(
    `UPDATE identity_verifiable_addresses SET verified = true, verified_at = now(), status = 'completed', updated_at = now()
     WHERE person_id = $1 AND lower(value) = lower($2)`,
    [personId, address],
  );
  const current = await currentEmail(c, personId);
  let changedFrom: string | null = null;
  if (current !== null && current.toLowerCase() !== address.toLowerCase()) {
    if (await emailTaken(c, address, personId)) throw taken();
    await applyEmail(c, personId, address);
    changedFrom = current;
    if (current) await enqueueMail(c, config, emailChangedMail(current, address, config.publicUrl));
    await recordAuthEvent(c, req, { personId, type: 'email_changed', details: { verified: true } });
  }
  await recordAuthEvent(c, req, { personId, type: 'verified', method: 'code', details: { address } });
  return { changedFrom };
}
