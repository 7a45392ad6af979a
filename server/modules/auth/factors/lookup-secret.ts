import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { UiNode, UiText } from '../../../contracts/identity.js';
import { safeEqual } from '../../../lib/crypto.js';
import { recordAuthEvent } from '../events.js';
import { FlowValidationError, type Factor, type FlowContext, type FlowOutcome } from '../flows/types.js';
import { authEncryptionKey, keyedHash, open, seal } from '../secret-box.js';

/**
 * Recovery codes (Kratos' `lookup_secret`): ten single-use codes of 8 characters (40 random bits each, Crockford's
 * base32 in lower case), a backup for the authenticator app or a security key. `lookup_secret_reveal` or
 * `_regenerate` puts a new set, sealed, in the flow's data and shows it once; `lookup_secret_confirm` replaces the
 * stored set with it; `lookup_secret_disable` removes them. Stored as `<salt>$<HMAC-SHA256>` under a key derived
 * from the auth encryption key (secret-box.ts keyedHash): fast enough to try ten per sign-in (argon2 would cost
 * ~8 ms each), and a database dump alone gives no offline guess of a 40-bit code.
 *
 * Codes count as a second factor (enrolled) only while an authenticator app or a security key is set up too, as in
 * Kratos, where they are the backup of another factor: codes alone never make sign-in ask for aal2, and do not
 * satisfy a policy requiring a second factor.
 */

export const LOOKUP_CODE_COUNT = 10;
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

const info = (id: number, text: string, context?: Record<string, unknown>): UiText =>
  ({ id, text, type: 'info', ...(context ? { context } : {}) });
export const LOOKUP_TEXTS = {
  invalid: { id: 4000016, text: 'The backup recovery code is not valid.', type: 'error' } as UiText,
  used: { id: 4000012, text: 'This backup recovery code has already been used.', type: 'error' } as UiText,
  required: { id: 4000002, text: 'Property lookup_secret is missing.', type: 'error', context: { property: 'lookup_secret' } } as UiText,
  saved: { id: 1050001, text: 'Your changes have been saved!', type: 'success' } as UiText,
  loginLabel: info(1010007, 'Backup recovery code'),
  loginSubmit: info(1010010, 'Use backup recovery code'),
  reveal: info(1050007, 'Reveal backup recovery codes'),
  regenerate: info(1050008, 'Generate new backup recovery codes'),
  codesLabel: info(1050010, 'These are your back up recovery codes. Please keep them in a safe place!'),
  confirm: info(1050011, 'Confirm backup recovery codes'),
  disable: info(1050016, 'Disable this method'),
};

/** A new code: 40 random bits as 8 characters of Crockford's base32. */
export function newLookupCode(): string {
  let n = BigInt('0x' + randomBytes(5).toString('hex'));
  let s = '';
  for (let i = 0; i < 8; i++) {
    s = ALPHABET[Number(n & 31n)] + s;
    n >>= 5n;
  }
  return s;
}

/** What a person typed, as stored: lower case, no blanks or dashes, o → 0 and i, l → 1 (Crockford's reading). */
export function normalizeLookupCode(v: unknown): string {
  if (typeof v !== 'string') return '';
  return v.toLowerCase().replace(/[\s-]+/g, '').replace(/o/g, '0').replace(/[il]/g, '1');
}

const hashCode = (key: Buffer, code: string): string => {
  const salt = randomBytes(12).toString('base64url');
  return `${salt}$${keyedHash(key, salt, code)}`;
};
const codeMatches = (key: Buffer, stored: string, code: string): boolean => {
  const [salt, hash] = stored.split('$');
  return !!salt && !!hash && safeEqual(keyedHash(key, salt, code), hash);
};

const truthy = (v: unknown): boolean => v === true || v === 'true' || v === '1' || v === 'on';
const pendingContext = (flowId: string, personId: string) => `lookup-pending:${flowId}:${personId}`;

const input = (name: string, type: 'text' | 'submit', label: UiText, extra: Record<string, unknown> = {}): UiNode => ({
  type: 'input', group: 'lookup_secret', messages: [], meta: { label },
  attributes: { node_type: 'input', name, type, ...extra },
});
const button = (name: string, label: UiText) => input(name, 'submit', label, { value: true });

async function codeCount(db: pg.Pool | pg.PoolClient, personId: string): Promise<{ total: number; unused: number }> {
  const { rows } = await db.query<{ total: number; unused: number }>(
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE used_at IS NULL)::int AS unused
       FROM auth_lookup_secrets WHERE person_id = $1`, [personId]);
  return rows[0] ?? { total: 0, unused: 0 };
}

/** Whether another second factor (authenticator app, security key) is set up: the registry is read at call time. */
async function hasPrimarySecondFactor(db: pg.Pool | pg.PoolClient, personId: string): Promise<boolean> {
  const { FACTORS } = await import('./index.js');
  for (const f of FACTORS) {
    if (f.aal === 'aal2' && f.method !== 'lookup_secret' && (await f.enrolled(db, personId))) return true;
  }
  return false;
}

async function enrolled(db: pg.Pool | pg.PoolClient, personId: string): Promise<boolean> {
  return (await codeCount(db, personId)).unused > 0 && hasPrimarySecondFactor(db, personId);
}

function pendingCodes(ctx: FlowContext, personId: string): string[] | null {
  const sealed = ctx.flow.data.lookup_pending;
  if (typeof sealed !== 'string') return null;
  try {
    const codes = JSON.parse(open(sealed, authEncryptionKey(ctx.config), pendingContext(ctx.flow.id, personId))) as unknown;
    return Array.isArray(codes) && codes.every((c) => typeof c === 'string') ? codes : null;
  } catch {
    return null;
  }
}

async function settingsNodes(ctx: FlowContext): Promise<UiNode[]> {
  const personId = ctx.personId;
  if (!personId) return [];
  const pending = pendingCodes(ctx, personId);
  if (pending) {
    const secrets = pending.map((code) => info(1050009, code, { secret: code }));
    return [
      { type: 'text', group: 'lookup_secret', messages: [], meta: { label: LOOKUP_TEXTS.codesLabel },
        attributes: { node_type: 'text', id: 'lookup_secret_codes', text: info(1050015, pending.join(', '), { secrets }) } },
      button('lookup_secret_confirm', LOOKUP_TEXTS.confirm),
    ];
  }
  const { total, unused } = await codeCount(ctx.db, personId);
  if (!total) return [button('lookup_secret_regenerate', LOOKUP_TEXTS.regenerate)];
  // The stored codes are hashes: "reveal" cannot show them again, it offers a new set (the old one stays until confirm).
  return [
    { type: 'text', group: 'lookup_secret', messages: [], meta: {},
      attributes: { node_type: 'text', id: 'lookup_secret_remaining',
        text: info(1059001, `${unused} of ${total} backup recovery codes left.`, { unused, total }) } },
    button('lookup_secret_reveal', LOOKUP_TEXTS.reveal),
    button('lookup_secret_regenerate', LOOKUP_TEXTS.regenerate),
    button('lookup_secret_disable', LOOKUP_TEXTS.disable),
  ];
}

async function settings(ctx: FlowContext, body: Record<string, unknown>): Promise<FlowOutcome> {
  const personId = ctx.personId;
  if (!personId) throw new FlowValidationError([LOOKUP_TEXTS.invalid]);
  const event = (type: string, details: Record<string, unknown> = {}) => recordAuthEvent(ctx.db, ctx.req,
    { personId, sessionId: ctx.session?.id, type, method: 'lookup_secret', aal: ctx.session?.aal, details });
  if (truthy(body.lookup_secret_disable)) {
    const { rowCount } = await ctx.db.query('DELETE FROM auth_lookup_secrets WHERE person_id = $1', [personId]);
    await ctx.saveData({ lookup_pending: null });
    ctx.flow.data.lookup_pending = null;
    if (rowCount) await event('lookup_disabled');
    return { kind: 'show', messages: [LOOKUP_TEXTS.saved] };
  }
  if (truthy(body.lookup_secret_confirm)) {
    const codes = pendingCodes(ctx, personId);
    if (!codes) throw new FlowValidationError([LOOKUP_TEXTS.invalid]);
    const key = authEncryptionKey(ctx.config);
    const client = await ctx.db.connect();
    try {
      await client.query('BEGIN');
      await client.query('DELETE FROM auth_lookup_secrets WHERE person_id = $1', [personId]);
      await client.query(
        'INSERT INTO auth_lookup_secrets (person_id, code_hash) SELECT $1, unnest($2::text[])',
        [personId, codes.map((c) => hashCode(key, c))]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
    await ctx.saveData({ lookup_pending: null });
    ctx.flow.data.lookup_pending = null;
    await event('lookup_regenerated', { codes: codes.length });
    return { kind: 'show', messages: [LOOKUP_TEXTS.saved] };
  }
  if (truthy(body.lookup_secret_reveal) || truthy(body.lookup_secret_regenerate)) {
    const codes = Array.from({ length: LOOKUP_CODE_COUNT }, newLookupCode);
    const pending = seal(JSON.stringify(codes), authEncryptionKey(ctx.config), pendingContext(ctx.flow.id, personId));
    await ctx.saveData({ lookup_pending: pending });
    ctx.flow.data.lookup_pending = pending;
    return { kind: 'show' };
  }
  return { kind: 'show' };
}

async function loginNodes(ctx: FlowContext): Promise<UiNode[]> {
  if (!ctx.personId || !(await enrolled(ctx.db, ctx.personId))) return [];
  return [
    input('lookup_secret', 'text', LOOKUP_TEXTS.loginLabel, { required: true, autocomplete: 'off', maxlength: 12 }),
    input('method', 'submit', LOOKUP_TEXTS.loginSubmit, { value: 'lookup_secret' }),
  ];
}

async function login(ctx: FlowContext, body: Record<string, unknown>): Promise<{ personId: string; aal: 'aal2' }> {
  const personId = ctx.personId;
  const code = normalizeLookupCode(body.lookup_secret);
  if (!code) throw new FlowValidationError([LOOKUP_TEXTS.required], 'lookup_secret');
  if (!personId || !/^[0-9a-z]{8}$/.test(code) || !(await hasPrimarySecondFactor(ctx.db, personId))) {
    throw new FlowValidationError([LOOKUP_TEXTS.invalid], 'lookup_secret');
  }
  const key = authEncryptionKey(ctx.config);
  const { rows } = await ctx.db.query<{ id: string; code_hash: string; used_at: Date | null }>(
    'SELECT id, code_hash, used_at FROM auth_lookup_secrets WHERE person_id = $1', [personId]);
  const hit = rows.find((r) => codeMatches(key, r.code_hash, code));
  if (!hit) throw new FlowValidationError([LOOKUP_TEXTS.invalid], 'lookup_secret');
  if (hit.used_at) throw new FlowValidationError([LOOKUP_TEXTS.used], 'lookup_secret');
  // Single use even under a race: only one request sets used_at.
  const { rowCount } = await ctx.db.query(
    'UPDATE auth_lookup_secrets SET used_at = now() WHERE id = $1 AND used_at IS NULL', [hit.id]);
  if (!rowCount) throw new FlowValidationError([LOOKUP_TEXTS.used], 'lookup_secret');
  return { personId, aal: 'aal2' };
}

async function reset(db: pg.PoolClient, personId: string): Promise<void> {
  await db.query('DELETE FROM auth_lookup_secrets WHERE person_id = $1', [personId]);
}

export const lookupSecretFactor: Factor = {
  method: 'lookup_secret', group: 'lookup_secret', aal: 'aal2',
  enrolled, loginNodes, login, settingsNodes, settings, reset,
  // unused codes, and another second factor (as hasPrimarySecondFactor)
  enrolledSql(person, factors) {
    const primary = factors.filter((f) => f.aal === 'aal2' && f.method !== 'lookup_secret' && f.enrolledSql);
    const others = primary.map((f) => `(${f.enrolledSql!(person, factors)})`).join(' OR ') || 'false';
    return `(EXISTS (SELECT 1 FROM auth_lookup_secrets WHERE person_id = ${person} AND used_at IS NULL) AND (${others}))`;
  },
};
