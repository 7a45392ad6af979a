import { createHash } from 'node:crypto';
import { errorText, InvalidSpecError } from './result.js';
import { redactor } from './secrets.js';

/**
 * OAuth2 client credentials grant (RFC 6749 §4.4) for checks that call an API with a bearer token: the token is
 * fetched from `tokenURL`, kept until shortly before it expires and shared by every check with the same client.
 * Behaves as golang.org/x/oauth2/clientcredentials, which the reference uses.
 */
export interface OAuth2Client {
  tokenURL: string;
  clientID: string;
  clientSecret: string;
  scopes: string[];
  params: Record<string, string>;
}

interface Token {
  /** The `Authorization` header value: `Bearer <access_token>`. */
  authorization: string;
  /** Epoch ms after which the token is fetched again; Infinity when the server gave no lifetime. */
  refreshAt: number;
}

/** Refresh this long before the server's expiry, so a token does not run out mid-request (x/oauth2 uses 10 s). */
export const EXPIRY_MARGIN_MS = 10_000;
/** Token responses are small; a larger body is not a token response. */
const MAX_TOKEN_RESPONSE = 64 * 1024;

const tokens = new Map<string, Token>();
/** Where the token endpoint accepted the client credentials (RFC 6749 §2.3.1 allows both), learnt once per client. */
const authStyles = new Map<string, 'header' | 'body'>();

/** The secret is part of the key (hashed) so a rotated secret never reuses a token obtained with the old one. */
function cacheKey(c: OAuth2Client): string {
  const scopes = [...c.scopes].sort();
  const params = Object.entries(c.params).sort(([a], [b]) => a.localeCompare(b));
  return createHash('sha256').update(JSON.stringify([c.tokenURL, c.clientID, c.clientSecret, scopes, params])).digest('hex');
}

/** Checks a client config; throws InvalidSpecError with the reason. */
export function validateOAuth2(c: OAuth2Client): void {
  let url: URL;
  try {
    url = new URL(c.tokenURL);
  } catch {
    throw new InvalidSpecError(`oauth2.tokenURL is not a valid url: ${c.tokenURL}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidSpecError(`oauth2.tokenURL must be http or https, not ${url.protocol}`);
  }
  if (!c.clientID) throw new InvalidSpecError('oauth2 needs a client ID (oauth2.clientID or username)');
  for (const k of ['scope', 'client_id', 'client_secret']) {
    if (k in c.params) throw new InvalidSpecError(`oauth2.params cannot set ${k}`);
  }
}

/**
 * The `Authorization` header for `client`: a cached token while it is fresh, else a new one from the token endpoint.
 * A refused token request throws an Error with the endpoint's status and error text (never the secret).
 */
export async function oauth2Authorization(client: OAuth2Client, signal: AbortSignal, now: () => number = Date.now): Promise<string> {
  validateOAuth2(client);
  const key = cacheKey(client);
  const cached = tokens.get(key);
  if (cached && now() < cached.refreshAt) return cached.authorization;
  const token = await requestToken(client, signal, now);
  for (const [k, t] of tokens) if (now() >= t.refreshAt) tokens.delete(k); // keep the cache to live tokens
  tokens.set(key, token);
  return token.authorization;
}

/** Drops the cached token of `client` (the API refused it): the next run asks for a new one. */
export function forgetOAuth2Token(client: OAuth2Client): void {
  tokens.delete(cacheKey(client));
}

async function requestToken(client: OAuth2Client, signal: AbortSignal, now: () => number): Promise<Token> {
  const styleKey = `${client.tokenURL}\0${client.clientID}`;
  const known = authStyles.get(styleKey);
  // Unknown endpoint: try HTTP Basic first (RFC 6749 §2.3.1 prefers it), then the form body, as x/oauth2 does
  const styles: Array<'header' | 'body'> = known ? [known] : ['header', 'body'];
  let lastError: Error | undefined;
  for (const style of styles) {
    const res = await postTokenRequest(client, style, signal, now);
    if ('token' in res) {
      authStyles.set(styleKey, style);
      return res.token;
    }
    lastError = res.error;
  }
  throw lastError!;
}

async function postTokenRequest(
  client: OAuth2Client, style: 'header' | 'body', signal: AbortSignal, now: () => number,
): Promise<{ token: Token } | { error: Error }> {
  const redact = redactor(client.clientSecret);
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (client.scopes.length) form.set('scope', client.scopes.join(' '));
  for (const [k, v] of Object.entries(client.params)) form.set(k, v);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (style === 'header') {
    // RFC 6749 §2.3.1: both parts are form-urlencoded before they are joined and base64-encoded
    const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
    headers.authorization = `Basic ${Buffer.from(`${enc(client.clientID)}:${enc(client.clientSecret)}`).toString('base64')}`;
  } else {
    form.set('client_id', client.clientID);
    form.set('client_secret', client.clientSecret);
  }
  const prefix = `oauth2 token request to ${client.tokenURL}`;
  let res: Response;
  let text: string;
  try {
    // redirect: 'manual': the client secret is never replayed to wherever a token endpoint points
    res = await fetch(client.tokenURL, { method: 'POST', headers, body: form.toString(), signal, redirect: 'manual' });
    text = await readCapped(res);
  } catch (err) {
    if (signal.aborted) throw err;
    return { error: new Error(redact(`${prefix} failed: ${errorText(err)}`)) };
  }
  const fields = parseTokenBody(text, res.headers.get('content-type') ?? '');
  if (res.status < 200 || res.status > 299) {
    const reason = fields.error
      ? [fields.error, fields.error_description].filter(Boolean).join(': ')
      : text.trim().slice(0, 200);
    return { error: new Error(redact(`${prefix} failed: ${res.status} ${res.statusText}${reason ? `: ${reason}` : ''}`)) };
  }
  const access = fields.access_token;
  if (typeof access !== 'string' || !access) {
    return { error: new Error(`${prefix}: the response has no access_token`) };
  }
  const type = typeof fields.token_type === 'string' && fields.token_type ? fields.token_type : 'Bearer';
  const expiresIn = Number(fields.expires_in);
  const refreshAt = Number.isFinite(expiresIn) && expiresIn > 0 ? now() + expiresIn * 1000 - EXPIRY_MARGIN_MS : Infinity;
  return { token: { authorization: `${type.toLowerCase() === 'bearer' ? 'Bearer' : type} ${access}`, refreshAt } };
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_TOKEN_RESPONSE) {
      await reader.cancel().catch(() => {});
      throw new Error(`response larger than ${MAX_TOKEN_RESPONSE} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** JSON (RFC 6749 §5.1); some providers answer form-encoded, which x/oauth2 accepts too. */
function parseTokenBody(text: string, contentType: string): Record<string, unknown> {
  if (/application\/x-www-form-urlencoded|text\/plain/i.test(contentType)) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
