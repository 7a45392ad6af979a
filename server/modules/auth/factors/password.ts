import type pg from 'pg';
import type { UiNode } from '../../../contracts/identity.js';
import { hashSecret, verifySecret } from '../../../lib/crypto.js';
import { notifyChange } from '../../../lib/events.js';
import { invalidatePrincipals } from '../../../plugins/auth.js';
import { recordAuthEvent } from '../events.js';
import { assertNotLocked, assertUnlocked, bodyValue, LOCK_MINUTES, noteFailure } from '../flows/engine.js';
import { label, message } from '../flows/messages.js';
import { deletePersonSessions } from '../flows/queries.js';
import { FlowValidationError, type Factor, type FlowContext } from '../flows/types.js';
import { localLoginRefusal } from '../oidc/index.js';
import { findLoginCandidates } from '../queries.js';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 1024;

// Unknown identifiers still cost one argon2 verification, so timing does not tell which accounts exist.
let dummyHash: Promise<string> | undefined;

const input = (name: string, type: 'text' | 'password' | 'hidden', group: UiNode['group'], extra: Partial<Record<string, unknown>>, lbl?: number, text?: string): UiNode => ({
  type: 'input', group, messages: [], meta: lbl ? { label: label(lbl, text) } : {},
  attributes: { node_type: 'input', name, type, required: true, disabled: false, ...extra } as UiNode['attributes'],
});

const submit = (lbl: number): UiNode => ({
  type: 'input', group: 'password', messages: [], meta: { label: label(lbl) },
  attributes: { node_type: 'input', name: 'method', type: 'submit', value: 'password', disabled: false },
});

/** The first factor's identifier (email or name; `username` as the legacy form names it), trimmed, at most 320
 * characters; '' when absent. */
export function loginIdentifier(body: Record<string, unknown>): string {
  const v = typeof body.identifier === 'string' ? body.identifier : typeof body.username === 'string' ? body.username : '';
  return v.trim().slice(0, 320);
}

function str(body: Record<string, unknown>, name: string, field = name): string {
  const v = bodyValue(body, name);
  if (typeof v !== 'string' || v === '') throw new FlowValidationError([message(4000002, { property: field })], field);
  return v;
}

/** A new password's policy: 8 to 1024 characters, not the email itself. */
export function checkNewPassword(password: string, email: string | null): void {
  if (password.length < PASSWORD_MIN) {
    throw new FlowValidationError([message(4000032, { min_length: PASSWORD_MIN, actual_length: password.length })], 'password');
  }
  if (password.length > PASSWORD_MAX) {
    throw new FlowValidationError([message(4000005, { reason: `it is longer than ${PASSWORD_MAX} characters` })], 'password');
  }
  if (email && password.toLowerCase() === email.toLowerCase()) {
    throw new FlowValidationError([message(4000005, { reason: 'the password is too similar to the user identifier' })], 'password');
  }
}

async function personEmail(db: pg.Pool | pg.PoolClient, id: string): Promise<string | null> {
  const { rows } = await db.query<{ email: string | null }>('SELECT email FROM people WHERE id = $1', [id]);
  return rows[0]?.email ?? null;
}

/** Sets a person's password (argon2id) and ends their other sessions; audited as password_changed. */
export async function changePassword(ctx: FlowContext, personId: string, password: string): Promise<void> {
  const hash = await hashSecret(password);
  await ctx.db.query(
    `INSERT INTO identity_credentials (identity_id, password_hash) VALUES ($1, $2)
     ON CONFLICT (identity_id) DO UPDATE SET password_hash = EXCLUDED.password_hash, updated_at = now()`,
    [personId, hash],
  );
  const ended = await deletePersonSessions(ctx.db, personId, ctx.session?.id ?? null);
  invalidatePrincipals();
  await notifyChange(ctx.db, { relation: 'sessions' }).catch(() => undefined);
  await recordAuthEvent(ctx.db, ctx.req, {
    personId, sessionId: ctx.session?.id ?? null, type: 'password_changed', method: 'password', details: { other_sessions_ended: ended },
  });
}

/** The password: first factor of a login (identifier + password), refresh, and the settings flow's new password. */
export const passwordFactor: Factor = {
  method: 'password',
  group: 'password',
  aal: 'aal1',

  async enrolled(db, personId) {
    const { rows } = await db.query('SELECT 1 FROM identity_credentials WHERE identity_id = $1', [personId]);
    return rows.length > 0;
  },

  async loginNodes(ctx) {
    const refresh = Boolean(ctx.flow.person_id);
    const email = refresh ? await personEmail(ctx.db, ctx.flow.person_id!) : undefined;
    return [
      refresh
        ? input('identifier', 'hidden', 'default', { value: email ?? '' })
        : input('identifier', 'text', 'default', { value: '', autocomplete: 'username webauthn' }, 1070004, 'Email or username'),
      input('password', 'password', 'password', { autocomplete: 'current-password' }, 1070001),
      submit(1010001),
    ];
  },

  async login(ctx, body) {
    const password = str(body, 'password');
    if (password.length > PASSWORD_MAX) throw new FlowValidationError([message(4000006)]);
    if (ctx.flow.person_id) {
      // refresh: the signed-in person's own password, whatever identifier was sent
      await assertNotLocked(ctx.db, ctx.flow.person_id);
      const { rows } = await ctx.db.query<{ password_hash: string }>(
        'SELECT password_hash FROM identity_credentials WHERE identity_id = $1', [ctx.flow.person_id],
      );
      if (rows[0] && (await verifySecret(rows[0].password_hash, password))) return { personId: ctx.flow.person_id, aal: 'aal1' };
      await noteFailure(ctx.db, ctx.req, ctx.flow.person_id, 'password', { refresh: true });
      throw new FlowValidationError([message(4000006)]);
    }
    // hosted mode: the password form is for break-glass admins only (OIDC_LOCAL_LOGIN)
    const off = localLoginRefusal(ctx.config, null);
    if (off && ctx.config.OIDC_LOCAL_LOGIN === 'none') throw new FlowValidationError([message(4000001, { reason: off })]);
    const identifier = loginIdentifier(body);
    if (!identifier) throw new FlowValidationError([message(4000002, { property: 'identifier' })], 'identifier');
    const candidates = ctx.loginCandidates?.identifier === identifier
      ? ctx.loginCandidates.rows
      : await findLoginCandidates(ctx.db, identifier, LOCK_MINUTES);
    if (candidates.length === 0) await verifySecret(await (dummyHash ??= hashSecret('not a password')), password);
    for (const c of candidates) assertUnlocked(c.locked_until);
    for (const c of candidates) {
      if (await verifySecret(c.password_hash, password)) {
        if (c.state !== 'active') break; // an inactive user learns no more than a wrong password tells
        const refusal = localLoginRefusal(ctx.config, c.roles);
        if (refusal) throw new FlowValidationError([message(4000001, { reason: refusal })]);
        return { personId: c.id, aal: 'aal1' };
      }
    }
    await noteFailure(ctx.db, ctx.req, candidates[0]?.id ?? null, 'password', candidates[0] ? {} : { identifier: identifier.slice(0, 100) });
    throw new FlowValidationError([message(4000006)]);
  },

  async settingsNodes() {
    return [input('password', 'password', 'password', { autocomplete: 'new-password' }, 1070001), submit(1070005)];
  },

  async settings(ctx, body) {
    const personId = ctx.flow.person_id!;
    const password = str(body, 'password');
    checkNewPassword(password, await personEmail(ctx.db, personId));
    await changePassword(ctx, personId, password);
    return { kind: 'show', messages: [message(1050001)] };
  },
};
