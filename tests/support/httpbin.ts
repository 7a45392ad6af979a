import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the public hosts canary-checker's fixtures call, answering in the shapes those hosts use
 * where a fixture reads them:
 * - httpbin (httpbin.flanksource.com runs postmanlabs/httpbin): /status/:code, /get, /post, /anything, /headers,
 *   /html, /uuid, /delay/:n, /redirect-to, /basic-auth/:user/:passwd, /bearer, /digest-auth/:qop/:user/:passwd[/:alg];
 * - frankfurter (api.frankfurter.app): /latest?from=USD&to=EUR,GBP with fixed rates;
 * - an OAuth2 token endpoint like Curity's demo (login-demo.curity.io): POST /oauth/v2/oauth-token, client
 *   credentials grant, for the clients in `oauthClients`;
 * - `/`: an index page linking the endpoints (an example.com check only asks for a 200).
 * One plain listener and one TLS listener share these routes; every public host of a fixture maps to one of them.
 */
export interface Httpbin {
  /** `http://127.0.0.1:<port>`. */
  http: string;
  /** `https://127.0.0.1:<port>`, with the certificate given to startHttpbin. */
  https: string;
  httpPort: number;
  httpsPort: number;
  close(): Promise<void>;
}

export interface HttpbinOptions {
  /** PEM certificate and key of the TLS listener (it should name IP 127.0.0.1). */
  tls: { cert: string; key: string };
  /** client id → secret accepted by the OAuth2 token endpoint. */
  oauthClients?: Record<string, string>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: Buffer, params: string[]) => void | Promise<void>;

/** Rates a frankfurter answer carries (fixed: the fixtures read them, none asserts a value). */
const RATES: Record<string, number> = { EUR: 0.9234, GBP: 0.7861, ILS: 3.7412, ZAR: 18.214, USD: 1 };
const DIGEST_REALM = 'me@kennethreitz.com';
const DIGEST_HASHES: Record<string, string> = { MD5: 'md5', 'SHA-256': 'sha256', 'SHA-512': 'sha512' };
const MAX_DELAY_S = 10;

export async function startHttpbin(opts: HttpbinOptions): Promise<Httpbin> {
  const clients = opts.oauthClients ?? {};
  const routes: Array<[string, RegExp, Handler]> = [
    ['GET', /^\/$/, (_q, res) => html(res, 200, INDEX_HTML)],
    ['*', /^\/status\/(\d{3})$/, (_q, res, _u, _b, [code]) => {
      // httpbin answers an empty text/html body; a 401 carries its challenge, a 3xx a Location
      const c = Number(code);
      if (c === 401) res.setHeader('www-authenticate', 'Basic realm="Fake Realm"');
      if (c >= 300 && c < 400) res.setHeader('location', '/redirect/1');
      html(res, c, '');
    }],
    ['GET', /^\/get$/, (q, res, u) => json(res, 200, { args: args(u), headers: headers(q), origin: origin(q), url: u.toString() })],
    ['*', /^\/(post|put|patch|delete|anything(?:\/.*)?)$/, (q, res, u, b, [route]) => {
      const wanted = route.toUpperCase();
      if (!route.startsWith('anything') && q.method !== wanted) return json(res, 405, { error: 'method not allowed' });
      json(res, 200, { ...requestDict(q, u, b), ...(route.startsWith('anything') && { method: q.method }) });
    }],
    ['GET', /^\/headers$/, (q, res) => json(res, 200, { headers: headers(q) })],
    ['GET', /^\/html$/, (_q, res) => html(res, 200, MELVILLE_HTML)],
    ['GET', /^\/uuid$/, (_q, res) => json(res, 200, { uuid: randomUUID() })],
    ['*', /^\/delay\/(\d+(?:\.\d+)?)$/, async (q, res, u, b, [n]) => {
      await sleep(Math.min(Number(n), MAX_DELAY_S) * 1000, q);
      if (!res.destroyed) json(res, 200, requestDict(q, u, b));
    }],
    ['*', /^\/redirect-to$/, (_q, res, u) => {
      const status = Number(u.searchParams.get('status_code') ?? 302);
      res.writeHead(status >= 300 && status < 400 ? status : 302, { location: u.searchParams.get('url') ?? '/' }).end();
    }],
    ['GET', /^\/basic-auth\/([^/]+)\/([^/]+)$/, (q, res, _u, _b, [user, passwd]) => {
      const given = basicCredentials(q);
      if (given?.user === user && given.password === passwd) return json(res, 200, { authenticated: true, user });
      res.writeHead(401, { 'www-authenticate': 'Basic realm="Fake Realm"' }).end();
    }],
    ['GET', /^\/bearer$/, (q, res) => {
      const m = /^Bearer (.+)$/i.exec(q.headers.authorization ?? '');
      if (m) return json(res, 200, { authenticated: true, token: m[1] });
      res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    }],
    ['GET', /^\/digest-auth\/([^/]+)\/([^/]+)\/([^/]+)(?:\/([^/]+))?$/, (q, res, _u, _b, [qop, user, passwd, alg]) =>
      digestAuth(q, res, qop, user, passwd, (alg ?? 'MD5').toUpperCase())],
    ['GET', /^\/(?:v1\/)?latest$/, (_q, res, u) => {
      const base = (u.searchParams.get('from') ?? u.searchParams.get('base') ?? 'EUR').toUpperCase();
      const to = (u.searchParams.get('to') ?? Object.keys(RATES).join(',')).toUpperCase().split(',').filter((c) => c && c !== base);
      const rate = (c: string) => Math.round(((RATES[c] ?? 1) / (RATES[base] ?? 1)) * 1e5) / 1e5;
      json(res, 200, { amount: 1.0, base, date: new Date().toISOString().slice(0, 10), rates: Object.fromEntries(to.sort().map((c) => [c, rate(c)])) });
    }],
    ['POST', /^\/oauth\/v2\/oauth-token$/, (q, res, _u, b) => {
      const form = new URLSearchParams(b.toString('utf8'));
      const basic = basicCredentials(q);
      const id = basic?.user ?? form.get('client_id') ?? '';
      const secret = basic?.password ?? form.get('client_secret') ?? '';
      if (form.get('grant_type') !== 'client_credentials') return json(res, 400, { error: 'unsupported_grant_type' });
      if (!(id in clients) || clients[id] !== secret) return json(res, 401, { error: 'invalid_client' });
      json(res, 200, { access_token: `_0XBPWQQ_${randomBytes(12).toString('hex')}`, scope: form.get('scope') ?? '', token_type: 'bearer', expires_in: 300 });
    }],
  ];

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, scheme: string) => {
    const url = new URL(req.url ?? '/', `${scheme}://${req.headers.host ?? '127.0.0.1'}`);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    for (const [method, re, fn] of routes) {
      const m = re.exec(url.pathname);
      if (!m || (method !== '*' && method !== req.method && !(method === 'GET' && req.method === 'HEAD'))) continue;
      try {
        await fn(req, res, url, body, m.slice(1));
      } catch (err) {
        if (!res.headersSent) json(res, 500, { error: (err as Error).message });
      }
      return;
    }
    html(res, 404, '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">\n<title>404 Not Found</title>\n<h1>Not Found</h1>\n');
  };

  const plain = http.createServer((q, r) => void handle(q, r, 'http'));
  const secure = https.createServer({ cert: opts.tls.cert, key: opts.tls.key }, (q, r) => void handle(q, r, 'https'));
  const listen = (s: http.Server) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
  const [httpPort, httpsPort] = await Promise.all([listen(plain), listen(secure)]);
  return {
    http: `http://127.0.0.1:${httpPort}`,
    https: `https://127.0.0.1:${httpsPort}`,
    httpPort,
    httpsPort,
    async close() {
      for (const s of [plain, secure]) s.closeAllConnections();
      await Promise.all([plain, secure].map((s) => new Promise((r) => s.close(r))));
    },
  };
}

function json(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
  res.end(`${JSON.stringify(body, null, 2)}\n`);
}

function html(res: http.ServerResponse, status: number, body: string) {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
}

/** Header names as httpbin prints them (Werkzeug's Title-Case: `User-Agent`, `X-Amz-Date`). */
function headers(req: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    out[k.split('-').map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('-')] = Array.isArray(v) ? v.join(',') : v;
  }
  return out;
}

/** Query arguments: one value as a string, repeated ones as a list (httpbin's `args`). */
function args(u: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const k of new Set(u.searchParams.keys())) {
    const all = u.searchParams.getAll(k);
    out[k] = all.length === 1 ? all[0] : all;
  }
  return out;
}

function origin(req: http.IncomingMessage): string {
  return (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
}

/** httpbin's request dict of /post, /anything, /delay: `json` is the body parsed as JSON whatever its type, else null. */
function requestDict(req: http.IncomingMessage, u: URL, body: Buffer) {
  const text = body.toString('utf8');
  const isForm = (req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded');
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return {
    args: args(u), data: isForm ? '' : text, files: {}, form: isForm ? Object.fromEntries(new URLSearchParams(text)) : {},
    headers: headers(req), json: parsed, origin: origin(req), url: u.toString(),
  };
}

function basicCredentials(req: http.IncomingMessage): { user: string; password: string } | undefined {
  const m = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return undefined;
  const text = Buffer.from(m[1], 'base64').toString('utf8');
  const i = text.indexOf(':');
  return i < 0 ? undefined : { user: text.slice(0, i), password: text.slice(i + 1) };
}

/** `key="value", key=value` pairs of an `Authorization: Digest ...` header. */
function digestParams(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of header.replace(/^Digest\s+/i, '').matchAll(/([a-zA-Z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) {
    out[m[1].toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3];
  }
  return out;
}

/** httpbin's /digest-auth: a challenge without (or with wrong) credentials, `{authenticated, user}` with right ones. */
function digestAuth(req: http.IncomingMessage, res: http.ServerResponse, qop: string, user: string, passwd: string, alg: string) {
  const hashName = DIGEST_HASHES[alg] ?? 'md5';
  const algorithm = DIGEST_HASHES[alg] ? alg : 'MD5';
  const h = (s: string) => createHash(hashName).update(s).digest('hex');
  const offered = qop === 'auth' || qop === 'auth-int' ? qop : undefined;
  const challenge = () => {
    const nonce = h(`${Date.now()}:${randomBytes(8).toString('hex')}`);
    const opaque = h(randomBytes(8).toString('hex'));
    res.writeHead(401, {
      'www-authenticate': `Digest realm="${DIGEST_REALM}", nonce="${nonce}", ${offered ? `qop="${offered}", ` : ''}opaque="${opaque}", algorithm=${algorithm}, stale=FALSE`,
    }).end();
  };
  const header = req.headers.authorization ?? '';
  if (!/^Digest\s/i.test(header)) return challenge();
  const p = digestParams(header);
  const ha1 = h(`${user}:${p.realm ?? DIGEST_REALM}:${passwd}`);
  const ha2 = h(`${req.method}:${p.uri ?? ''}`);
  const expected = p.qop ? h(`${ha1}:${p.nonce}:${p.nc}:${p.cnonce}:${p.qop}:${ha2}`) : h(`${ha1}:${p.nonce}:${ha2}`);
  if (p.username !== user || p.response !== expected) return challenge();
  json(res, 200, { authenticated: true, user });
}

/** Waits, ending early when the client goes away (a check's timeout must not hold the server for the full delay). */
function sleep(ms: number, req: http.IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      req.socket.off('close', done);
      resolve();
    }
    req.socket.once('close', done);
  });
}

const INDEX_HTML = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>httpbin (local)</title></head>
<body><h1>httpbin (local)</h1>
<ul>
<li><a href="/get">/get</a></li><li><a href="/headers">/headers</a></li><li><a href="/html">/html</a></li>
<li><a href="/uuid">/uuid</a></li><li><a href="/status/200">/status/200</a></li><li><a href="/anything">/anything</a></li>
</ul></body></html>
`;

// httpbin's /html is a passage of Moby-Dick under the author's name; the fixtures look for the name only.
const MELVILLE_HTML = `<!DOCTYPE html>
<html><head></head>
<body><h1>Herman Melville - Moby-Dick</h1>
<div><p>A stand-in page for httpbin's /html, which serves a chapter of the novel under this heading.</p></div>
</body></html>
`;
