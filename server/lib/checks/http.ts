import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { z } from 'zod';
import { renderGoTemplate } from '../go-template.js';
import { thresholdSignal } from './lib/abort.js';
import { digestAuthorization, parseChallenges, pickDigestChallenge } from './lib/digest.js';
import { EnvVar, envValue, targetUrl } from './lib/env-var.js';
import { forgetOAuth2Token, oauth2Authorization, validateOAuth2, type OAuth2Client } from './lib/oauth2.js';
import { BODY_HEADERS, CREDENTIAL_HEADERS, DEFAULT_MAX_REDIRECTS, mayKeepCredentials, nextHop, type Hop } from './lib/redirect.js';
import { abortedText, InvalidSpecError } from './lib/result.js';
import { redactor } from './lib/secrets.js';
import { TlsConfig, tlsOptions, tlsSecrets } from './lib/tls.js';
import type { TemplatingCheckContext } from '../../modules/health/check-templates.js';
import type { CheckResult, CheckType } from './types.js';
import { errorText, jsonPath, NameValue, toHeaderMap, USER_AGENTS, withUserAgent } from './util.js';

/** Bodies are read up to this; the rest is discarded (content matching sees the first MiB). */
export const MAX_BODY_BYTES = 1024 * 1024;

const HttpSpec = z.object({
  url: z.string().optional(),
  endpoint: z.string().optional(),
  /** A plain URL, or `connection://ns/name` (merged into url and credentials by the runner: health/connections.ts). */
  connection: z.string().optional(),
  method: z.string().regex(/^[A-Za-z]+$/).default('GET'),
  headers: z.union([z.array(NameValue), z.record(z.string(), z.string())]).optional(),
  body: z.string().optional(),
  /** Render `body` as a Go template over the check's context (canary, check), its env entries and last_result. */
  templateBody: z.boolean().optional(),
  responseCodes: z.array(z.number().int().min(100).max(599)).optional(),
  responseContent: z.string().optional(),
  responseJSONContent: z.object({ path: z.string().min(1), value: z.string() }).optional(),
  /** Fail when the certificate expires in fewer days than this. */
  maxSSLExpiry: z.number().int().min(0).optional(),
  /** Verification, CA and client certificate (mTLS); each PEM may be a Secret (valueFrom). */
  tlsConfig: TlsConfig.optional(),
  /** HTTP Basic, or the Digest / OAuth2 client credentials (the reference puts the client ID and secret here). */
  username: EnvVar.optional(),
  password: EnvVar.optional(),
  /** Older manifests' spelling of username/password (`authentication: {username, password}`); the top-level fields win. */
  authentication: z.object({ username: EnvVar.optional(), password: EnvVar.optional() }).optional(),
  /** `Authorization: Bearer <token>`. */
  bearer: EnvVar.optional(),
  /** Answer a Digest challenge (RFC 7616) with username/password instead of sending Basic. */
  digest: z.boolean().optional(),
  ntlm: z.boolean().optional(),
  ntlmv2: z.boolean().optional(),
  /** Client credentials grant; `scope` is the reference's name, `scopes` an alias. */
  oauth2: z.object({
    tokenURL: z.string(),
    scope: z.array(z.string()).optional(),
    scopes: z.array(z.string()).optional(),
    params: z.record(z.string(), z.string()).optional(),
    clientID: EnvVar.optional(),
    clientSecret: EnvVar.optional(),
  }).optional(),
  /**
   * Values for `$(.name)` in the url, as the reference fills them (`url: https://$(.user):$(.pass)@host/`); each a
   * value or a valueFrom Secret/ConfigMap key. (`envVar` is an older spelling.)
   */
  env: z.array(NameValue).optional(),
  envVar: z.array(NameValue).optional(),
  /** Redirects followed before giving up (default 10, as Go's client); 0: a 3xx is the response. */
  maxRedirects: z.number().int().min(0).optional(),
  /**
   * The request's own timeout, as the reference's client Timeout: the whole exchange (redirects, body) is given up
   * after it. 0 or absent: only the check's `timeout` bounds it. (Also a common field: a slower result fails.)
   */
  thresholdMillis: z.number().int().min(0).optional(),
}).refine((s) => s.url || s.endpoint || s.connection, { message: 'url (or endpoint) is required', path: ['url'] });
type HttpSpec = z.infer<typeof HttpSpec>;

interface Fetched {
  code: number;
  headers: Record<string, string>;
  /** Every `WWW-Authenticate` field as received (node joins repeated fields, which loses challenge boundaries). */
  challenges: string[];
  content: string;
  truncated: boolean;
  bytes: number;
  sslDaysLeft?: number;
  sslNotAfter?: string;
}

type Tls = ReturnType<typeof tlsOptions>;

/**
 * A header name as Go's http.CanonicalMIMEHeaderKey writes it (`content-type` → `Content-Type`), which is how the
 * reference's `headers` map is keyed: manifests test `headers['Location']`.
 */
export function canonicalHeader(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

function fetchOnce(hop: Hop, headers: Record<string, string>, tls: Tls, signal: AbortSignal): Promise<Fetched> {
  const { url } = hop;
  const lib = url.protocol === 'https:' ? https : http;
  // Go's client sends a string body with its Content-Length (whatever the method); Node would send a GET body chunked,
  // which many servers refuse (400) on a GET
  if (hop.body !== undefined && !Object.keys(headers).some((k) => /^(content-length|transfer-encoding)$/i.test(k))) {
    headers = { ...headers, 'Content-Length': String(Buffer.byteLength(hop.body)) };
  }
  return new Promise((resolve, reject) => {
    const req = lib.request(url, {
      method: hop.method,
      headers,
      signal,
      agent: false, // a fresh connection each run: honest timings and a certificate to inspect
      ...(url.protocol === 'https:' && {
        ...tls,
        // SNI carries names only (RFC 6066)
        servername: isIP(url.hostname.replace(/^\[|\]$/g, '')) ? undefined : url.hostname,
      }),
    }, (res) => {
      let sslDaysLeft: number | undefined;
      let sslNotAfter: string | undefined;
      const sock = res.socket as TLSSocket;
      if (typeof sock.getPeerCertificate === 'function') {
        const cert = sock.getPeerCertificate();
        if (cert?.valid_to) {
          const notAfter = new Date(cert.valid_to);
          sslNotAfter = notAfter.toISOString();
          sslDaysLeft = Math.floor((notAfter.getTime() - Date.now()) / 86_400_000);
        }
      }
      const challenges: string[] = [];
      for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
        if (res.rawHeaders[i].toLowerCase() === 'www-authenticate') challenges.push(res.rawHeaders[i + 1]);
      }
      const chunks: Buffer[] = [];
      let kept = 0;
      let bytes = 0;
      let truncated = false;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (kept < MAX_BODY_BYTES) {
          const part = chunk.subarray(0, MAX_BODY_BYTES - kept);
          chunks.push(part);
          kept += part.length;
        }
        if (bytes > MAX_BODY_BYTES && !truncated) {
          truncated = true;
          res.destroy(); // stop reading a huge body instead of downloading it to throw it away
          finish();
        }
      });
      const finish = () => resolve({
        code: res.statusCode ?? 0,
        headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v ?? ''])),
        challenges,
        content: Buffer.concat(chunks).toString('utf8'),
        truncated, bytes, sslDaysLeft, sslNotAfter,
      });
      res.on('end', finish);
      res.on('error', (err) => (truncated ? undefined : reject(err)));
      res.on('aborted', () => (truncated ? undefined : reject(new Error('response aborted'))));
    });
    req.on('error', reject);
    if (hop.body !== undefined) req.end(hop.body);
    else req.end();
  });
}

/** How the check authenticates, resolved from its fields once per run. */
interface Auth {
  /** Sent with every request to the original host (Basic, Bearer). */
  header?: string;
  digest?: { username: string; password: string };
  oauth2?: OAuth2Client;
  /** Values to scrub from anything the check reports. */
  secrets: string[];
}

const decodeUserinfo = (s: string, field: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new InvalidSpecError(`invalid url: the ${field} in it is not valid percent-encoding`);
  }
};

/**
 * Reads the credential fields (and URL userinfo, as the reference does) and decides the scheme. Throws
 * InvalidSpecError for combinations that cannot be honoured, rather than sending no or the wrong credentials.
 */
function resolveAuth(spec: HttpSpec, url: URL): Auth {
  if (spec.ntlm || spec.ntlmv2) {
    // Refused rather than sent without credentials. The npm NTLM clients (@ewsjs/ntlm-client, httpntlm,
    // axios-ntlm) are forks of one old code base: fixed 1 KiB message buffers that truncate silently, NTLMv1 or v2
    // chosen from a server flag instead of the spec, DES/MD4 from JS ports (Node 20's OpenSSL 3 lacks both). NTLM
    // also authenticates a kept-alive connection, not a request, and nothing here can check a client against a
    // real Windows server; a half-right NTLM client would report healthy targets as failing or worse.
    throw new InvalidSpecError('ntlm authentication is not supported');
  }
  const username = envValue(spec.username, 'username') ?? envValue(spec.authentication?.username, 'authentication.username') ?? (url.username ? decodeUserinfo(url.username, 'username') : undefined);
  const password = envValue(spec.password, 'password') ?? envValue(spec.authentication?.password, 'authentication.password') ?? (url.password ? decodeUserinfo(url.password, 'password') : undefined);
  const bearer = envValue(spec.bearer, 'bearer');
  const secrets = [password, bearer].filter((s): s is string => !!s);
  if (spec.oauth2) {
    if (spec.digest) throw new InvalidSpecError('digest and oauth2 cannot be used together');
    if (bearer) throw new InvalidSpecError('bearer and oauth2 cannot be used together');
    const o = spec.oauth2;
    const clientSecret = envValue(o.clientSecret, 'oauth2.clientSecret') ?? password ?? '';
    const client: OAuth2Client = {
      tokenURL: o.tokenURL,
      clientID: envValue(o.clientID, 'oauth2.clientID') ?? username ?? '',
      clientSecret,
      scopes: o.scope ?? o.scopes ?? [],
      params: o.params ?? {},
    };
    validateOAuth2(client);
    return { oauth2: client, secrets: [...secrets, clientSecret].filter(Boolean) };
  }
  if (spec.digest) {
    if (!username) throw new InvalidSpecError('digest authentication needs a username (and password)');
    if (bearer) throw new InvalidSpecError('digest and bearer cannot be used together');
    return { digest: { username, password: password ?? '' }, secrets };
  }
  if (bearer) {
    if (username !== undefined || password !== undefined) throw new InvalidSpecError('bearer and username/password cannot be used together');
    return { header: `Bearer ${bearer}`, secrets };
  }
  if (username !== undefined || password !== undefined) {
    return { header: `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64')}`, secrets };
  }
  return { secrets };
}

function withoutHeaders(h: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(h).filter(([k]) => !names.includes(k.toLowerCase())));
}

interface Exchange {
  f: Fetched;
  final: URL;
  redirects: number;
  /** Set when the redirect limit stopped the chain. */
  stopped?: string;
}

/**
 * Sends the request and follows redirects hop by hop: credentials go to the original host (and its subdomains)
 * only, a Digest challenge is answered on the spot, and the response that ends the chain is returned.
 */
async function exchange(spec: HttpSpec, url: URL, auth: Auth, tls: Tls, signal: AbortSignal): Promise<Exchange> {
  const userHeaders = withUserAgent(toHeaderMap(spec.headers), USER_AGENTS.http);
  const max = spec.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let authorization = auth.header;
  if (auth.oauth2) authorization = await oauth2Authorization(auth.oauth2, signal);
  let hop: Hop = { url, method: spec.method.toUpperCase(), body: spec.body };
  let credentials = true;
  let bodyDropped = false;
  let redirects = 0;
  for (;;) {
    let headers = userHeaders;
    if (!credentials) headers = withoutHeaders(headers, CREDENTIAL_HEADERS);
    if (bodyDropped) headers = withoutHeaders(headers, BODY_HEADERS);
    // the check's own credential fields win over an Authorization header written by hand
    if (credentials && authorization) headers = { ...withoutHeaders(headers, ['authorization']), authorization };
    let f = await fetchOnce(hop, headers, tls, signal);

    if (f.code === 401 && credentials && auth.digest) {
      // one answer per challenge; a second only when the server says our nonce went stale (RFC 7616 §3.3)
      for (let attempt = 0; attempt < 2 && f.code === 401; attempt++) {
        const challenge = pickDigestChallenge(parseChallenges(f.challenges));
        if (!challenge || (attempt > 0 && challenge.params.stale?.toLowerCase() !== 'true')) break;
        const answer = digestAuthorization(challenge, {
          method: hop.method, uri: `${hop.url.pathname}${hop.url.search}`, body: hop.body, ...auth.digest,
        });
        f = await fetchOnce(hop, { ...withoutHeaders(headers, ['authorization']), authorization: answer }, tls, signal);
      }
    }
    // a refused token is not reused: the next run asks the token endpoint again
    if (f.code === 401 && credentials && auth.oauth2) forgetOAuth2Token(auth.oauth2);

    if (max === 0) return { f, final: hop.url, redirects };
    const next = nextHop(hop, f.code, f.headers.location);
    if (!next) return { f, final: hop.url, redirects };
    if (next.url.protocol !== 'http:' && next.url.protocol !== 'https:') {
      return { f, final: hop.url, redirects, stopped: `redirect to unsupported protocol ${next.url.protocol}` };
    }
    if (redirects >= max) {
      const limit = spec.maxRedirects === undefined ? '' : ` (maxRedirects ${max})`;
      return { f, final: hop.url, redirects, stopped: `stopped after ${max} redirect${max === 1 ? '' : 's'}${limit}: ${f.code} to ${next.url}` };
    }
    redirects++;
    if (!mayKeepCredentials(url, next.url)) credentials = false; // once off the host, never restored (as Go >= 1.23.5)
    if (next.body === undefined && hop.body !== undefined) bodyDropped = true;
    hop = next;
  }
}

/**
 * Replaces `$(.name)` with the value of env entry `name` (an unknown name is an error: never sent as written), and
 * `$(name)` when there is an env entry of that name (the reference's manifests write both).
 */
function fillEnv(raw: string, env: Array<{ name: string; value: string }>): string {
  const values = new Map(env.map((e) => [e.name, e.value]));
  return raw.replace(/\$\((\.?)([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, dot: string, name: string) => {
    const v = values.get(name);
    if (v !== undefined) return v;
    if (dot) throw new Error(`$(.${name}) has no env entry named ${name}`);
    return m;
  });
}

async function run(spec: HttpSpec, ctx: TemplatingCheckContext): Promise<CheckResult> {
  const start = performance.now();
  const elapsed = () => Math.round(performance.now() - start);
  const env = [...(spec.envVar ?? []), ...(spec.env ?? [])];
  let body = spec.body;
  if (spec.templateBody && body !== undefined) {
    try {
      // as the reference: the check's context (canary, check) with the env entries on top, and last_result
      const data = { ...(ctx.template?.scope ?? {}), ...Object.fromEntries(env.map((e) => [e.name, e.value])) };
      body = fillEnv(renderGoTemplate(body, data, { lastResult: ctx.template?.lastResult }), env);
    } catch (err) {
      return { pass: false, invalid: true, duration: 0, error: `templateBody: ${errorText(err)}`, data: {} };
    }
  }
  let url: URL;
  try {
    url = new URL(fillEnv(targetUrl(spec, spec.endpoint), env));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported protocol ${url.protocol}`);
  } catch (err) {
    return { pass: false, invalid: true, duration: 0, error: `invalid url: ${errorText(err)}`, data: {} };
  }
  let auth: Auth;
  let tls: Tls;
  try {
    auth = resolveAuth(spec, url);
    tls = tlsOptions(spec.tlsConfig);
  } catch (err) {
    if (err instanceof InvalidSpecError) return { pass: false, invalid: true, duration: elapsed(), error: err.message, data: {} };
    throw err;
  }
  // credentials in the URL became auth above; the URL itself (sent, reported) carries none
  url.username = '';
  url.password = '';
  const redact = redactor(...auth.secrets, ...tlsSecrets(spec.tlsConfig));
  // thresholdMillis shorter than the check's timeout ends the request itself: a hanging target fails after it
  // instead of holding its canary until the timeout
  const limit = thresholdSignal(ctx, spec.thresholdMillis);
  let x: Exchange;
  try {
    x = await exchange({ ...spec, body }, url, auth, tls, limit.signal);
  } catch (err) {
    const error = ctx.signal.aborted ? abortedText(ctx) : limit.expired() ? limit.error : redact(errorText(err));
    return { pass: false, duration: elapsed(), error, data: { url: url.toString() } };
  }
  const { f } = x;
  const duration = elapsed();
  let json: unknown;
  const looksJson = /json/i.test(f.headers['content-type'] ?? '') || /^\s*[[{]/.test(f.content);
  if (looksJson && !f.truncated) {
    try {
      json = JSON.parse(f.content);
    } catch {
      json = undefined;
    }
  }
  const data = {
    code: f.code, headers: Object.fromEntries(Object.entries(f.headers).map(([k, v]) => [canonicalHeader(k), v])),
    // an empty map when the body is not JSON, as the reference (`json.field` is then absent, not an error on null)
    content: f.content, json: json ?? {}, elapsed: duration,
    // time left on the certificate, in ms: CEL sees a duration (`sslAge > Duration('7d')`), as the reference's
    // time.Duration; 0 over plain http, as the reference's zero duration
    sslAge: f.sslNotAfter ? Date.parse(f.sslNotAfter) - Date.now() : 0, url: x.final.toString(),
  };
  const detail = {
    code: f.code, bytes: f.bytes, ...(f.truncated && { truncated: true }),
    ...(x.redirects > 0 && { redirects: x.redirects, url: x.final.toString() }),
    ...(f.sslNotAfter && { sslNotAfter: f.sslNotAfter, sslDaysLeft: f.sslDaysLeft }),
  };
  const fail = (error: string): CheckResult => ({ pass: false, duration, error: redact(error), detail, data, message: `${f.code}` });

  if (x.stopped) return fail(x.stopped);
  const okCode = spec.responseCodes?.length ? spec.responseCodes.includes(f.code) : f.code >= 200 && f.code < 300;
  if (!okCode) {
    return fail(`response code ${f.code} not in ${spec.responseCodes?.length ? `[${spec.responseCodes.join(', ')}]` : '200-299'}`);
  }
  if (spec.responseContent !== undefined && !f.content.includes(spec.responseContent)) {
    return fail(`response does not contain "${spec.responseContent.slice(0, 200)}"${f.truncated ? ' (first 1 MiB searched)' : ''}`);
  }
  if (spec.responseJSONContent) {
    if (f.truncated) return fail(`response larger than ${MAX_BODY_BYTES} bytes: JSON not parsed`);
    if (json === undefined) return fail('response is not JSON');
    const got = jsonPath(json, spec.responseJSONContent.path);
    const text = got === undefined ? undefined : typeof got === 'string' ? got : JSON.stringify(got);
    if (text !== spec.responseJSONContent.value) {
      return fail(`${spec.responseJSONContent.path} is ${text === undefined ? 'missing' : JSON.stringify(text)}, expected ${JSON.stringify(spec.responseJSONContent.value)}`);
    }
  }
  if (spec.maxSSLExpiry !== undefined && f.sslDaysLeft !== undefined && f.sslDaysLeft < spec.maxSSLExpiry) {
    return fail(`SSL certificate expires in ${f.sslDaysLeft} days (less than maxSSLExpiry ${spec.maxSSLExpiry})`);
  }
  return { pass: true, duration, message: `${f.code}${f.truncated ? ' (body truncated at 1 MiB)' : ''}`, detail, data };
}

/**
 * HTTP(S) requests: status code, content, JSON path, TLS certificate expiry; Basic, Bearer, Digest and OAuth2
 * client credentials; redirects followed as Go's client does.
 */
export const httpCheck: CheckType<HttpSpec> = { type: 'http', schema: HttpSpec, run };
