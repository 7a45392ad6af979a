import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type pg from 'pg';
import type { Config } from '../../config.js';
import { randomToken, safeEqual, sha256 } from '../../lib/crypto.js';

type Db = pg.Pool | pg.PoolClient;

/** How long a recovery or verification code or link is good for. */
export const CODE_TTL_MINUTES = 15;
/** Wrong codes before the code (and its flow) is used up. */
export const MAX_CODE_ATTEMPTS = 5;

export type CodePurpose = 'recovery' | 'verification';

let cachedKey: { source: string; key: Buffer } | undefined;

/**
 * The HMAC key for codes: derived from AUTH_ENCRYPTION_KEY when set, else a random key kept in auth_server_keys
 * (made on first use), so every replica checks the codes another one issued.
 */
export async function codeKey(db: Db, config: Pick<Config, 'AUTH_ENCRYPTION_KEY'>): Promise<Buffer> {
  const source = config.AUTH_ENCRYPTION_KEY ? `env:${sha256(config.AUTH_ENCRYPTION_KEY)}` : 'db';
  if (cachedKey?.source === source) return cachedKey.key;
  let key: Buffer;
  if (config.AUTH_ENCRYPTION_KEY) {
    key = createHmac('sha256', config.AUTH_ENCRYPTION_KEY).update('one-time-codes').digest();
  } else {
    await db.query(
      `INSERT INTO auth_server_keys (name, secret) VALUES ('one_time_codes', $1) ON CONFLICT (name) DO NOTHING`,
      [randomBytes(32).toString('base64')],
    );
    const { rows } = await db.query<{ secret: string }>(`SELECT secret FROM auth_server_keys WHERE name = 'one_time_codes'`);
    key = Buffer.from(rows[0].secret, 'base64');
  }
  cachedKey = { source, key };
  return key;
}

/** The stored form of a code: HMAC-SHA256 over the flow and the code (a 6-digit code alone would repeat across flows). */
export function codeHash(key: Buffer, flowId: string, code: string): string {
  return createHmac('sha256', key).update(`${flowId}:${code}`).digest('hex');
}

/** A 6-digit code, uniformly drawn. */
export const newCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

export interface Issued {
  code: string;
  token: string;
}

/**
 * A fresh code and link token for a flow (the earlier unused ones of the flow stop working), stored as HMAC and
 * SHA-256 only. Both expire after CODE_TTL_MINUTES; using one uses up the other.
 */
export async function issueCodes(
  db: Db, key: Buffer, o: { flowId: string; personId: string; purpose: CodePurpose; address: string },
): Promise<Issued> {
  const code = newCode();
  const token = randomToken(32);
  await db.query(
    `UPDATE auth_one_time_codes SET used_at = now() WHERE flow_id = $1 AND purpose = $2 AND used_at IS NULL`,
    [o.flowId, o.purpose],
  );
  await db.query(
    `INSERT INTO auth_one_time_codes (flow_id, person_id, purpose, kind, address, secret_hash, expires_at)
     VALUES ($1, $2, $3, 'code', $4, $5, now() + make_interval(mins => $7)),
            ($1, $2, $3, 'link', $4, $6, now() + make_interval(mins => $7))`,
    [o.flowId, o.personId, o.purpose, o.address, codeHash(key, o.flowId, code), sha256(token), CODE_TTL_MINUTES],
  );
  return { code, token };
}

/** The same hashing an issue does, for an address that gets no code (equal work, equal timing). */
export function dummyIssue(key: Buffer, flowId: string): void {
  codeHash(key, flowId, newCode());
  sha256(randomToken(32));
}

export type CodeCheck =
  | { ok: true; personId: string; address: string }
  | { ok: false; attempts: number; exhausted: boolean };

/**
 * Checks a code against the flow's live code (under a row lock). Right: both the code and the link are used up.
 * Wrong: counts an attempt; the MAX_CODE_ATTEMPTS-th uses the code up (`exhausted`).
 */
export async function checkCode(db: pg.PoolClient, key: Buffer, flowId: string, purpose: CodePurpose, code: string): Promise<CodeCheck> {
  const { rows } = await db.query<{ id: string; person_id: string; address: string; secret_hash: string; attempts: number }>(
    `SELECT id, person_id, address, secret_hash, attempts FROM auth_one_time_codes
     WHERE flow_id = $1 AND purpose = $2 AND kind = 'code' AND used_at IS NULL AND expires_at > now()
     ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
    [flowId, purpose],
  );
  const row = rows[0];
  if (!row) return { ok: false, attempts: 0, exhausted: false };
  if (/^\d{6}$/.test(code.trim()) && safeEqual(codeHash(key, flowId, code.trim()), row.secret_hash)) {
    await useFlowCodes(db, flowId, purpose);
    return { ok: true, personId: row.person_id, address: row.address };
  }
  const attempts = row.attempts + 1;
  const exhausted = attempts >= MAX_CODE_ATTEMPTS;
  await db.query(
    `UPDATE auth_one_time_codes SET attempts = $2, used_at = CASE WHEN $3 THEN now() ELSE used_at END WHERE id = $1`,
    [row.id, attempts, exhausted],
  );
  return { ok: false, attempts, exhausted };
}

/**
 * Uses a flow's link token: its row (and the flow's code) are used up at once, so a replay finds nothing. Returns whose
 * it was, or null when unknown, used, expired or of another purpose.
 */
export async function useLinkToken(
  db: pg.PoolClient, purpose: CodePurpose, token: string, flowId: string,
): Promise<{ flowId: string | null; personId: string; address: string } | null> {
  const { rows } = await db.query<{ flow_id: string | null; person_id: string; address: string }>(
    `UPDATE auth_one_time_codes SET used_at = now()
     WHERE secret_hash = $1 AND kind = 'link' AND purpose = $2 AND flow_id = $3 AND used_at IS NULL AND expires_at > now()
     RETURNING flow_id, person_id, address`,
    [sha256(token), purpose, flowId],
  );
  const row = rows[0];
  if (!row) return null;
  if (row.flow_id) await useFlowCodes(db, row.flow_id, purpose);
  return { flowId: row.flow_id, personId: row.person_id, address: row.address };
}

async function useFlowCodes(db: Db, flowId: string, purpose: CodePurpose): Promise<void> {
  await db.query(
    'UPDATE auth_one_time_codes SET used_at = now() WHERE flow_id = $1 AND purpose = $2 AND used_at IS NULL',
    [flowId, purpose],
  );
}

/** Codes sent to an address (any person) for a purpose within the last `minutes`: the per-address mail limit. */
export async function recentCodesTo(db: Db, purpose: CodePurpose, address: string, minutes: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM auth_one_time_codes
     WHERE lower(address) = lower($1) AND purpose = $2 AND kind = 'code' AND created_at > now() - make_interval(mins => $3)`,
    [address, purpose, minutes],
  );
  return rows[0].n;
}

/** Recovery and verification limits and the answer floor, env-free so tests can shorten the floor. */
export const codeLimits = {
  /** Mails per address and purpose per hour (further requests get the same answer and no mail). */
  mailsPerAddressPerHour: 3,
  /** Requests for a mail per client address per minute (429 beyond). */
  requestsPerClientPerMinute: 10,
  /**
   * A request for a mail answers no sooner than this after it came in, whether a mail was queued or not, so the
   * time taken does not tell a known address from an unknown one (both paths also do the same hashing).
   */
  minAnswerMs: 300,
};

const windows = new Map<string, number[]>();

/** Counts a request of `purpose` from a client address (per replica, in memory); false past the minute's limit. */
export function allowClient(purpose: CodePurpose, ip: string): boolean {
  const key = `${purpose}:${ip}`;
  const now = Date.now();
  const recent = (windows.get(key) ?? []).filter((t) => t > now - 60_000);
  if (recent.length >= codeLimits.requestsPerClientPerMinute) {
    windows.set(key, recent);
    return false;
  }
  recent.push(now);
  windows.set(key, recent);
  if (windows.size > 10_000) for (const [k, v] of windows) if (!v.some((t) => t > now - 60_000)) windows.delete(k);
  return true;
}

/** Waits until `minAnswerMs` after `start`. */
export async function answerFloor(start: number): Promise<void> {
  const left = start + codeLimits.minAnswerMs - Date.now();
  if (left > 0) await new Promise((r) => setTimeout(r, left));
}
