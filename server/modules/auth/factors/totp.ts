import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { generateSecret, generateURI, verifySync, type CryptoPlugin } from 'otplib';
import QRCode from 'qrcode';
import type pg from 'pg';
import type { UiNode, UiText } from '../../../contracts/identity.js';
import { invalidatePrincipals } from '../../../plugins/auth.js';
import { recordAuthEvent } from '../events.js';
import { FlowValidationError, type Factor, type FlowContext, type FlowOutcome } from '../flows/types.js';
import { authEncryptionKey, open, seal } from '../secret-box.js';

/**
 * The authenticator app (TOTP, RFC 6238: SHA-1, 6 digits, 30 s) as a second factor, Kratos' `totp` method.
 * Settings: a pending secret (sealed in the flow's data) shown as a QR code and as text, confirmed with a code, then
 * stored sealed (AES-256-GCM, secret-box.ts) in auth_totp; unlink removes it. Login (aal2): a code one step either
 * side of now is accepted; each accepted code moves auth_totp.last_step forward in one UPDATE, so a code (or any
 * older one) is never accepted twice, even by two requests racing.
 */

export const TOTP_ISSUER = 'Ops Console';
const PERIOD = 30;
const QR_SIZE = 256;

const info = (id: number, text: string, context?: Record<string, unknown>): UiText =>
  ({ id, text, type: 'info', ...(context ? { context } : {}) });
export const TOTP_TEXTS = {
  invalid: { id: 4000008, text: 'The provided authentication code is invalid, please try again.', type: 'error' } as UiText,
  required: { id: 4000002, text: 'Property totp_code is missing.', type: 'error', context: { property: 'totp_code' } } as UiText,
  saved: { id: 1050001, text: 'Your changes have been saved!', type: 'success' } as UiText,
  loginLabel: info(1010006, 'Authentication code'),
  loginSubmit: info(1010009, 'Use Authenticator'),
  unlink: info(1050004, 'Unlink TOTP Authenticator App'),
  qr: info(1050005, 'Authenticator app QR code'),
  secretLabel: info(1050017, 'This is your authenticator app secret. Use it if you can not scan the QR code.'),
  verifyCode: info(1070006, 'Verify code'),
  save: info(1070003, 'Save'),
};

const sealContext = (personId: string) => `totp:${personId}`;
const pendingContext = (flowId: string, personId: string) => `totp-pending:${flowId}:${personId}`;

/** Node's own HMAC for otplib (its default is pure JS): a check is ~20 µs, synchronous, with little garbage. */
const nodeCrypto: CryptoPlugin = {
  name: 'node',
  hmac: (algorithm, key, data) => new Uint8Array(createHmac(algorithm.toLowerCase().replace(/[-_]/g, ''), key).update(data).digest()),
  randomBytes: (n) => new Uint8Array(randomBytes(n)),
  constantTimeEqual: (a, b) => {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  },
};

/** The 30 s time step a code matched (for last_step), or null: wrong, malformed, too far off, or not after `afterStep`. */
export function matchTotp(secret: string, code: string, afterStep: number, epoch?: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const r = verifySync({
    secret, token: code, epochTolerance: PERIOD, afterTimeStep: afterStep, crypto: nodeCrypto, ...(epoch ? { epoch } : {}),
  });
  return r.valid && 'timeStep' in r ? r.timeStep : null;
}

/** The otpauth:// URI an authenticator app scans. */
export function totpUri(secret: string, account: string, issuer = TOTP_ISSUER): string {
  return generateURI({ issuer, label: account, secret });
}

/** A submitted code with blanks removed (apps show "123 456"). */
const codeOf = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v).replace(/\s+/g, '') : '');
const truthy = (v: unknown): boolean => v === true || v === 'true' || v === '1' || v === 'on';

const input = (name: string, type: 'text' | 'submit', label: UiText, extra: Record<string, unknown> = {}): UiNode => ({
  type: 'input', group: 'totp', messages: [], meta: { label },
  attributes: { node_type: 'input', name, type, ...extra },
});

async function storedSecret(ctx: FlowContext, personId: string): Promise<{ secret: string; lastStep: number } | null> {
  const { rows } = await ctx.db.query<{ secret_enc: string; last_step: string }>(
    'SELECT secret_enc, last_step FROM auth_totp WHERE person_id = $1', [personId]);
  if (!rows[0]) return null;
  return { secret: open(rows[0].secret_enc, authEncryptionKey(ctx.config), sealContext(personId)), lastStep: Number(rows[0].last_step) };
}

/** The flow's pending secret (created and sealed into flow data on first sight), for enrolment. */
async function pendingSecret(ctx: FlowContext, personId: string, create: boolean): Promise<string | null> {
  const key = authEncryptionKey(ctx.config);
  const sealed = ctx.flow.data.totp_pending;
  if (typeof sealed === 'string') {
    try {
      return open(sealed, key, pendingContext(ctx.flow.id, personId));
    } catch { /* sealed under another key or person: make a new one */ }
  }
  if (!create) return null;
  const secret = generateSecret();
  const pending = seal(secret, key, pendingContext(ctx.flow.id, personId));
  await ctx.saveData({ totp_pending: pending });
  ctx.flow.data.totp_pending = pending;
  return secret;
}

async function accountName(db: pg.Pool, personId: string): Promise<string> {
  const { rows } = await db.query<{ email: string | null; name: string | null }>('SELECT email, name FROM people WHERE id = $1', [personId]);
  return rows[0]?.email || rows[0]?.name || personId;
}

async function enrolled(db: pg.Pool | pg.PoolClient, personId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM auth_totp WHERE person_id = $1', [personId]);
  return (rowCount ?? 0) > 0;
}

async function settingsNodes(ctx: FlowContext): Promise<UiNode[]> {
  const personId = ctx.personId;
  if (!personId) return [];
  if (await enrolled(ctx.db, personId)) return [input('totp_unlink', 'submit', TOTP_TEXTS.unlink, { value: true })];
  const secret = (await pendingSecret(ctx, personId, true))!;
  const src = await QRCode.toDataURL(totpUri(secret, await accountName(ctx.db, personId)), { width: QR_SIZE, margin: 1 });
  return [
    { type: 'img', group: 'totp', messages: [], meta: { label: TOTP_TEXTS.qr },
      attributes: { node_type: 'img', id: 'totp_qr', src, width: QR_SIZE, height: QR_SIZE } },
    { type: 'text', group: 'totp', messages: [], meta: { label: TOTP_TEXTS.secretLabel },
      attributes: { node_type: 'text', id: 'totp_secret_key', text: info(1050006, secret, { secret }) } },
    input('totp_code', 'text', TOTP_TEXTS.verifyCode, { required: true, autocomplete: 'one-time-code', maxlength: 7 }),
    input('method', 'submit', TOTP_TEXTS.save, { value: 'totp' }),
  ];
}

async function settings(ctx: FlowContext, body: Record<string, unknown>): Promise<FlowOutcome> {
  const personId = ctx.personId;
  if (!personId) throw new FlowValidationError([TOTP_TEXTS.invalid]);
  if (truthy(body.totp_unlink)) {
    const { rowCount } = await ctx.db.query('DELETE FROM auth_totp WHERE person_id = $1', [personId]);
    if (rowCount) {
      await recordAuthEvent(ctx.db, ctx.req, { personId, sessionId: ctx.session?.id, type: 'totp_removed', method: 'totp', aal: ctx.session?.aal });
    }
    return { kind: 'show', messages: [TOTP_TEXTS.saved] };
  }
  const code = codeOf(body.totp_code);
  if (!code) throw new FlowValidationError([TOTP_TEXTS.required], 'totp_code');
  if (await enrolled(ctx.db, personId)) throw new FlowValidationError([TOTP_TEXTS.invalid], 'totp_code');
  const secret = await pendingSecret(ctx, personId, false);
  const step = secret ? matchTotp(secret, code, 0) : null;
  if (!secret || step === null) throw new FlowValidationError([TOTP_TEXTS.invalid], 'totp_code');
  const sealed = seal(secret, authEncryptionKey(ctx.config), sealContext(personId));
  // last_step = the confirming code's step: that code cannot also sign in
  const { rowCount } = await ctx.db.query(
    `INSERT INTO auth_totp (person_id, secret_enc, last_step) VALUES ($1, $2, $3) ON CONFLICT (person_id) DO NOTHING`,
    [personId, sealed, step]);
  if (!rowCount) throw new FlowValidationError([TOTP_TEXTS.invalid], 'totp_code');
  await ctx.saveData({ totp_pending: null });
  // The person has just proven the authenticator in a privileged session: this session holds aal2 from now on,
  // rather than being sent to the second-factor prompt by its next request.
  if (ctx.session) {
    const method = { method: 'totp', aal: 'aal2', completed_at: new Date().toISOString() };
    await ctx.db.query(`UPDATE sessions SET aal = 'aal2', methods = methods || $2::jsonb WHERE id = $1`, [ctx.session.id, JSON.stringify([method])]);
    invalidatePrincipals();
  }
  await recordAuthEvent(ctx.db, ctx.req, { personId, sessionId: ctx.session?.id, type: 'totp_enrolled', method: 'totp', aal: 'aal2' });
  return { kind: 'show', messages: [TOTP_TEXTS.saved] };
}

async function loginNodes(ctx: FlowContext): Promise<UiNode[]> {
  if (!ctx.personId || !(await enrolled(ctx.db, ctx.personId))) return [];
  return [
    input('totp_code', 'text', TOTP_TEXTS.loginLabel, { required: true, autocomplete: 'one-time-code', maxlength: 7 }),
    input('method', 'submit', TOTP_TEXTS.loginSubmit, { value: 'totp' }),
  ];
}

async function login(ctx: FlowContext, body: Record<string, unknown>): Promise<{ personId: string; aal: 'aal2' }> {
  const personId = ctx.personId;
  const code = codeOf(body.totp_code);
  if (!code) throw new FlowValidationError([TOTP_TEXTS.required], 'totp_code');
  let stored: Awaited<ReturnType<typeof storedSecret>> = null;
  try {
    stored = personId ? await storedSecret(ctx, personId) : null;
  } catch (err) {
    // sealed under another AUTH_ENCRYPTION_KEY (the key or DATA_DIR was lost): a recovery code or an admin reset helps
    ctx.req.log?.error({ err, personId }, 'the authenticator secret cannot be opened with this AUTH_ENCRYPTION_KEY');
  }
  const step = stored ? matchTotp(stored.secret, code, stored.lastStep) : null;
  if (!personId || step === null) throw new FlowValidationError([TOTP_TEXTS.invalid], 'totp_code');
  // Take the step atomically: of two requests with the same code only one moves last_step.
  const { rowCount } = await ctx.db.query(
    'UPDATE auth_totp SET last_step = $2 WHERE person_id = $1 AND last_step < $2', [personId, step]);
  if (!rowCount) throw new FlowValidationError([TOTP_TEXTS.invalid], 'totp_code');
  return { personId, aal: 'aal2' };
}

async function reset(db: pg.PoolClient, personId: string): Promise<void> {
  await db.query('DELETE FROM auth_totp WHERE person_id = $1', [personId]);
}

export const totpFactor: Factor = {
  method: 'totp', group: 'totp', aal: 'aal2',
  enrolled, loginNodes, login, settingsNodes, settings, reset,
  enrolledSql: (person) => `EXISTS (SELECT 1 FROM auth_totp WHERE person_id = ${person})`,
};
