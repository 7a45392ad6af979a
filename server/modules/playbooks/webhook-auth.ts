import { createHmac, timingSafeEqual } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { UnauthorizedError } from '../../lib/errors.js';
import { parseGoDuration } from '../health/schedule.js';

/** What the authentication needs of a webhook request: its headers and its body exactly as received. */
export interface WebhookAuthRequest {
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
}

/**
 * Reads one credential of the spec: a string, or an EnvVar ({value} or {valueFrom} a Secret or ConfigMap, resolved
 * in the playbook's namespace). Throws when it cannot be read.
 */
export type CredentialReader = (value: unknown, field: string) => Promise<string>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function header(req: WebhookAuthRequest, name: string): string {
  const v = req.headers[name.toLowerCase()];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

const refuse = (message: string): never => {
  throw new UnauthorizedError(message);
};

async function basic(block: Record<string, unknown>, req: WebhookAuthRequest, read: CredentialReader): Promise<void> {
  const m = /^Basic\s+(\S+)$/i.exec(header(req, 'authorization'));
  if (!m) refuse('basic authentication required');
  const given = Buffer.from(m![1], 'base64').toString('utf8');
  const want = `${await read(block.username, 'basic.username')}:${await read(block.password, 'basic.password')}`;
  if (!sameBytes(Buffer.from(given), Buffer.from(want))) refuse('invalid username or password');
}

async function github(block: Record<string, unknown>, req: WebhookAuthRequest, read: CredentialReader): Promise<void> {
  const sent = header(req, 'x-hub-signature-256');
  if (!sent.startsWith('sha256=')) refuse('missing X-Hub-Signature-256');
  const want = `sha256=${createHmac('sha256', await read(block.token, 'github.token')).update(req.rawBody).digest('hex')}`;
  if (!sameBytes(Buffer.from(sent), Buffer.from(want))) refuse('invalid X-Hub-Signature-256');
}

/** Svix's default tolerance between its timestamp and our clock. */
const SVIX_TOLERANCE_MS = 5 * 60_000;

/** `verifyTimestamp`: empty → 5 minutes (svix's own default); a duration → that; "false" or "0" → not checked. */
function svixTolerance(v: unknown): number | null {
  const text = typeof v === 'string' ? v.trim() : typeof v === 'boolean' ? String(v) : '';
  if (!text || text === 'true') return SVIX_TOLERANCE_MS;
  if (text === 'false' || text === '0') return null;
  return parseGoDuration(text);
}

async function svix(block: Record<string, unknown>, req: WebhookAuthRequest, read: CredentialReader): Promise<void> {
  const id = header(req, 'svix-id') || header(req, 'webhook-id');
  const ts = header(req, 'svix-timestamp') || header(req, 'webhook-timestamp');
  const sigs = header(req, 'svix-signature') || header(req, 'webhook-signature');
  if (!id || !ts || !sigs) refuse('missing svix-id, svix-timestamp or svix-signature');
  const tolerance = svixTolerance(block.verifyTimestamp);
  const seconds = Number(ts);
  if (!Number.isFinite(seconds)) refuse('invalid svix-timestamp');
  if (tolerance !== null && Math.abs(Date.now() - seconds * 1000) > tolerance) refuse('svix-timestamp too old or too new');
  const secret = await read(block.secret, 'svix.secret');
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  const want = Buffer.from(createHmac('sha256', key).update(`${id}.${ts}.${req.rawBody}`).digest('base64'));
  const ok = sigs.split(' ').some((s) => {
    const [version, sig] = s.split(',', 2);
    return version === 'v1' && sig !== undefined && sameBytes(Buffer.from(sig), want);
  });
  if (!ok) refuse('invalid svix-signature');
}

// one remote key set per URI: jose caches the keys and refetches on an unknown kid (rate limited)
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

async function jwt(block: Record<string, unknown>, req: WebhookAuthRequest): Promise<JWTPayload> {
  const uri = typeof block.jwksUri === 'string' ? block.jwksUri : '';
  if (!uri) refuse('jwt authentication has no jwksUri');
  const m = /^Bearer\s+(\S+)$/i.exec(header(req, 'authorization'));
  if (!m) refuse('bearer token required');
  let keys = keySets.get(uri);
  if (!keys) {
    if (keySets.size > 100) keySets.clear();
    keys = createRemoteJWKSet(new URL(uri), { timeoutDuration: 5_000 });
    keySets.set(uri, keys);
  }
  try {
    return (await jwtVerify(m![1], keys)).payload;
  } catch (err) {
    return refuse(`invalid token: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Checks a webhook request against the playbook's `on.webhook.authentication`: every method it configures must pass
 * (basic, github, svix, jwt); none configured lets every request in, as in the reference. Throws UnauthorizedError
 * (401) naming what failed; answers the JWT's claims when a token was verified.
 */
export async function authenticateWebhook(auth: unknown, req: WebhookAuthRequest, read: CredentialReader): Promise<JWTPayload | undefined> {
  if (!isObject(auth)) return undefined;
  if (isObject(auth.basic)) await basic(auth.basic, req, read);
  if (isObject(auth.github)) await github(auth.github, req, read);
  if (isObject(auth.svix)) await svix(auth.svix, req, read);
  return isObject(auth.jwt) ? jwt(auth.jwt, req) : undefined;
}
