import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkContext } from '../../../tests/fixtures/servers/check-context.js';
import { sendJson, startHttpServer, type HttpServer, type RecordedRequest } from '../../../tests/fixtures/servers/http.js';
import { closedPort } from '../../../tests/fixtures/servers/tcp.js';
import { executeCheck } from '../../modules/health/runner.js';
import { httpCheck } from './http.js';

// Every target is a real node:http server this file starts on 127.0.0.1; "localhost" names the same address
// under another host name, which is what a cross-host redirect needs.

const run = (spec: Record<string, unknown>) => httpCheck.run(httpCheck.schema.parse(spec), checkContext());

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
const unauthorized = (res: ServerResponse, challenge: string | string[]) => {
  res.writeHead(401, { 'www-authenticate': challenge });
  res.end('unauthorized');
};

describe('http check: basic and bearer', () => {
  let api: HttpServer;
  beforeAll(async () => {
    api = await startHttpServer((req, res) => {
      const auth = req.headers.authorization;
      if (req.url.pathname === '/basic') {
        if (auth === basic('alice', 'pa:ss wörd')) return void res.end('welcome alice');
        return unauthorized(res, 'Basic realm="test"');
      }
      if (req.url.pathname === '/bearer') {
        if (auth === 'Bearer t0ken-xyz') return void res.end('welcome bearer');
        return unauthorized(res, 'Bearer realm="test"');
      }
      sendJson(res, 200, { auth: auth ?? null, custom: req.headers['x-custom'] ?? null });
    });
  });
  afterAll(() => api?.close());

  it('sends Basic credentials from plain strings, {value} and the URL userinfo', async () => {
    expect(await run({ url: `${api.url}/basic`, username: 'alice', password: 'pa:ss wörd' })).toMatchObject({ pass: true });
    expect(await run({ url: `${api.url}/basic`, username: { value: 'alice' }, password: { name: 'pw', value: 'pa:ss wörd' } }))
      .toMatchObject({ pass: true });
    const fromUrl = await run({ url: `http://alice:${encodeURIComponent('pa:ss wörd')}@127.0.0.1:${api.port}/basic` });
    expect(fromUrl).toMatchObject({ pass: true, data: { url: `${api.url}/basic` } });
  });

  it('fails on 401 when the credentials are refused, without the password anywhere in the result', async () => {
    const r = await run({ url: `${api.url}/basic`, username: 'alice', password: 'not-the-Secret-42' });
    expect(r).toMatchObject({ pass: false, error: 'response code 401 not in 200-299', data: { code: 401 } });
    expect(r.invalid).toBeFalsy();
    expect(JSON.stringify(r)).not.toContain('not-the-Secret-42');
    expect(await run({ url: `${api.url}/basic` })).toMatchObject({ pass: false, data: { code: 401 } });
  });

  it('sends Authorization: Bearer from bearer', async () => {
    expect(await run({ url: `${api.url}/bearer`, bearer: { value: 't0ken-xyz' } })).toMatchObject({ pass: true });
    expect(await run({ url: `${api.url}/bearer`, bearer: 't0ken-xyz' })).toMatchObject({ pass: true });
    const wrong = await run({ url: `${api.url}/bearer`, bearer: 'other-t0ken' });
    expect(wrong).toMatchObject({ pass: false, data: { code: 401 } });
  });

  it('keeps {name, value} headers; credential fields win over a hand-written Authorization header', async () => {
    const r = await run({
      url: `${api.url}/echo`, bearer: 'b1',
      headers: [{ name: 'X-Custom', value: 'yes' }, { name: 'Authorization', value: 'Basic old' }],
    });
    expect(r.data.json).toEqual({ auth: 'Bearer b1', custom: 'yes' });
    const plain = await run({ url: `${api.url}/echo`, headers: { Authorization: 'Token abc' } });
    expect(plain.data.json).toEqual({ auth: 'Token abc', custom: null });
  });

  it('reports unusable credential fields as an invalid spec and sends nothing', async () => {
    const before = api.requests.length;
    const cases: Array<[Record<string, unknown>, string | RegExp]> = [
      [{ password: { valueFrom: { secretKeyRef: { name: 's', key: 'k' } } } }, /password: valueFrom was not resolved/],
      [{ bearer: 'x', username: 'u' }, 'bearer and username/password cannot be used together'],
      [{ digest: true, password: 'p' }, 'digest authentication needs a username (and password)'],
      [{ digest: true, username: 'u', oauth2: { tokenURL: 'http://127.0.0.1:1/t' } }, 'digest and oauth2 cannot be used together'],
      [{ oauth2: { tokenURL: 'http://127.0.0.1:1/t' } }, 'oauth2 needs a client ID (oauth2.clientID or username)'],
      [{ oauth2: { tokenURL: 'ftp://x/t' }, username: 'id' }, 'oauth2.tokenURL must be http or https, not ftp:'],
      [{ ntlm: true, username: 'u', password: 'p' }, 'ntlm authentication is not supported'],
      [{ ntlmv2: true, username: 'u', password: 'p' }, 'ntlm authentication is not supported'],
    ];
    for (const [extra, error] of cases) {
      const r = await run({ url: `${api.url}/echo`, ...extra });
      expect(r, JSON.stringify(extra)).toMatchObject({ pass: false, invalid: true, error });
    }
    expect(api.requests.length).toBe(before);
  });

  it('through the runner: a malformed field is an invalid check with the path, a refused spec too', async () => {
    const check = (spec: Record<string, unknown>) => executeCheck({
      id: '00000000-0000-0000-0000-0000000000a1', canaryId: '00000000-0000-0000-0000-0000000000a2', type: 'http', name: 'auth',
      spec: { name: 'auth', url: `${api.url}/basic`, ...spec },
    });
    expect(await check({ oauth2: { scope: ['x'] } })).toMatchObject({ pass: false, invalid: true, error: expect.stringMatching(/^oauth2\.tokenURL: /) });
    expect(await check({ maxRedirects: -1 })).toMatchObject({ invalid: true, error: expect.stringMatching(/^maxRedirects: /) });
    expect(await check({ ntlm: true })).toMatchObject({ invalid: true, error: 'ntlm authentication is not supported' });
    expect(await check({ username: 'alice', password: 'pa:ss wörd', test: { expr: "code == 200 && url.endsWith('/basic')" } }))
      .toMatchObject({ pass: true, invalid: false });
  });
});

// ---- Digest: a verifier written from RFC 7616 §3.4, independently of lib/digest.ts ----

interface DigestServerOptions {
  /** One WWW-Authenticate field per algorithm, in this order. */
  algorithms: string[];
  qop?: string;
  user: string;
  password: string;
  /** Refuse the first correct answer as stale (RFC 7616 §3.3: a fresh nonce, stale=true). */
  staleOnce?: boolean;
}

function parseAuthParams(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of header.replace(/^Digest\s+/i, '').matchAll(/([a-z0-9-]+)=(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/gi)) {
    out[m[1].toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3];
  }
  return out;
}

const hashName: Record<string, string> = { 'MD5': 'md5', 'SHA-256': 'sha256', 'SHA-512-256': 'sha512-256' };

/** RFC 7616 §3.4.1-3.4.3: the response value the client must have sent. */
function expectedResponse(p: Record<string, string>, o: DigestServerOptions, method: string, body: string): string {
  const algorithm = p.algorithm ?? 'MD5';
  const base = algorithm.replace(/-sess$/i, '');
  const h = (s: string) => createHash(hashName[base]).update(s).digest('hex');
  let a1 = `${o.user}:${p.realm}:${o.password}`;
  if (/-sess$/i.test(algorithm)) a1 = `${h(a1)}:${p.nonce}:${p.cnonce}`;
  const a2 = p.qop === 'auth-int' ? `${method}:${p.uri}:${h(body)}` : `${method}:${p.uri}`;
  return h(`${h(a1)}:${p.nonce}:${p.nc}:${p.cnonce}:${p.qop}:${h(a2)}`);
}

async function startDigestServer(o: DigestServerOptions) {
  const nonces = new Set<string>();
  const accepted: Array<Record<string, string>> = [];
  const rejected: string[] = [];
  const opaque = randomBytes(8).toString('hex');
  let stale = o.staleOnce ?? false;
  const challenge = (res: ServerResponse, markStale = false) => {
    const fields = o.algorithms.map((alg) => {
      const nonce = randomBytes(12).toString('base64');
      nonces.add(nonce);
      return `Digest realm="checks@test", qop="${o.qop ?? 'auth'}", algorithm=${alg}, nonce="${nonce}", opaque="${opaque}"${markStale ? ', stale=true' : ''}`;
    });
    unauthorized(res, fields);
  };
  const server = await startHttpServer((req: RecordedRequest, res) => {
    const header = req.headers.authorization;
    if (!header?.startsWith('Digest ')) return challenge(res);
    const p = parseAuthParams(header);
    const problems = [
      p.username !== o.user && 'username',
      p.realm !== 'checks@test' && 'realm',
      !nonces.has(p.nonce) && 'nonce',
      p.opaque !== opaque && 'opaque',
      p.uri !== `${req.url.pathname}${req.url.search}` && 'uri',
      p.qop !== (o.qop ?? 'auth') && 'qop',
      !/^[0-9a-f]{8}$/.test(p.nc ?? '') && 'nc',
      !p.cnonce && 'cnonce',
      p.response !== expectedResponse(p, o, req.method, req.body) && 'response',
    ].filter(Boolean);
    if (problems.length) {
      rejected.push(problems.join(','));
      return challenge(res);
    }
    if (stale) {
      stale = false;
      nonces.delete(p.nonce);
      rejected.push('stale');
      return challenge(res, true);
    }
    accepted.push(p);
    sendJson(res, 200, { hello: p.username, method: req.method, body: req.body });
  });
  return Object.assign(server, { accepted, rejected });
}

describe('http check: digest against an RFC 7616 verifier', () => {
  const servers: HttpServer[] = [];
  const start = async (o: DigestServerOptions) => {
    const s = await startDigestServer(o);
    servers.push(s);
    return s;
  };
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  for (const algorithm of ['MD5', 'SHA-256', 'MD5-sess', 'SHA-256-sess', 'SHA-512-256']) {
    it(`answers an ${algorithm} challenge with qop=auth`, async () => {
      const s = await start({ algorithms: [algorithm], user: 'dig', password: 's3cret-Digest' });
      const r = await run({ url: `${s.url}/private?x=1&y=2`, digest: true, username: 'dig', password: { value: 's3cret-Digest' } });
      expect(r.error).toBeUndefined();
      expect(r).toMatchObject({ pass: true, data: { code: 200, json: { hello: 'dig' } } });
      expect(s.rejected).toEqual([]);
      expect(s.accepted).toHaveLength(1);
      expect(s.accepted[0]).toMatchObject({ algorithm, qop: 'auth', nc: '00000001', uri: '/private?x=1&y=2' });
    });
  }

  it('answers qop=auth-int over the request body, and POSTs the body again with the answer', async () => {
    const s = await start({ algorithms: ['SHA-256'], qop: 'auth-int', user: 'dig', password: 'pw' });
    const r = await run({ url: `${s.url}/submit`, method: 'POST', body: '{"a":1}', digest: true, username: 'dig', password: 'pw' });
    expect(r).toMatchObject({ pass: true, data: { json: { method: 'POST', body: '{"a":1}' } } });
    expect(s.accepted[0]).toMatchObject({ qop: 'auth-int' });
  });

  it('uses the first challenge it supports when the server offers several', async () => {
    const s = await start({ algorithms: ['SHA-256', 'MD5'], user: 'dig', password: 'pw' });
    expect(await run({ url: s.url, digest: true, username: 'dig', password: 'pw' })).toMatchObject({ pass: true });
    expect(s.accepted[0].algorithm).toBe('SHA-256');
  });

  it('fails with 401 on a wrong password, and the password stays out of the result', async () => {
    const s = await start({ algorithms: ['MD5'], user: 'dig', password: 'right' });
    const r = await run({ url: s.url, digest: true, username: 'dig', password: 'Wrong-Pass-77' });
    expect(r).toMatchObject({ pass: false, error: 'response code 401 not in 200-299' });
    expect(s.rejected).toEqual(['response']);
    expect(JSON.stringify(r)).not.toContain('Wrong-Pass-77');
  });

  it('answers once more with the new nonce when the server says the first was stale', async () => {
    const s = await start({ algorithms: ['MD5'], user: 'dig', password: 'pw', staleOnce: true });
    expect(await run({ url: s.url, digest: true, username: 'dig', password: 'pw' })).toMatchObject({ pass: true });
    expect(s.rejected).toEqual(['stale']);
    expect(s.accepted).toHaveLength(1);
  });

  it('fails clearly on a challenge it cannot answer', async () => {
    const s = await start({ algorithms: ['SHA-1'], user: 'dig', password: 'pw' });
    const r = await run({ url: s.url, digest: true, username: 'dig', password: 'pw' });
    expect(r.pass).toBe(false);
    expect(r.error).toMatch(/digest challenge not supported \(algorithm=SHA-1 qop=auth\)/);
  });

  it('without digest: true, username/password go as Basic and the digest server refuses them', async () => {
    const s = await start({ algorithms: ['MD5'], user: 'dig', password: 'pw' });
    expect(await run({ url: s.url, username: 'dig', password: 'pw' })).toMatchObject({ pass: false, data: { code: 401 } });
  });
});

// ---- OAuth2 client credentials against a local token endpoint ----

describe('http check: oauth2 client credentials', () => {
  let issuer: HttpServer;
  let api: HttpServer;
  const issued = new Set<string>();
  let lifetime = 3600;
  beforeAll(async () => {
    issuer = await startHttpServer((req, res) => {
      const form = new URLSearchParams(req.body);
      let id: string | undefined;
      let secret: string | undefined;
      const auth = req.headers.authorization;
      if (auth?.startsWith('Basic ')) {
        [id, secret] = Buffer.from(auth.slice(6), 'base64').toString().split(':').map((s) => decodeURIComponent(s.replace(/\+/g, ' ')));
      } else {
        id = form.get('client_id') ?? undefined;
        secret = form.get('client_secret') ?? undefined;
      }
      const body = req.url.pathname === '/body-only/token' && auth ? undefined : secret;
      if (req.method !== 'POST' || form.get('grant_type') !== 'client_credentials' || body !== `secret-of-${id}`) {
        return sendJson(res, 401, { error: 'invalid_client', error_description: 'client authentication failed' });
      }
      const token = `tok-${randomBytes(6).toString('hex')}`;
      issued.add(token);
      sendJson(res, 200, { access_token: token, token_type: 'bearer', expires_in: lifetime, scope: form.get('scope') });
    });
    api = await startHttpServer((req, res) => {
      const token = req.headers.authorization?.replace(/^Bearer /, '');
      if (!token || !issued.has(token)) return unauthorized(res, 'Bearer error="invalid_token"');
      sendJson(res, 200, { ok: true });
    });
  });
  afterAll(() => Promise.all([issuer?.close(), api?.close()]));
  const tokenRequests = (clientID: string) => issuer.requests.filter((r) => {
    const auth = r.headers.authorization;
    const id = auth ? Buffer.from(auth.slice(6), 'base64').toString().split(':')[0] : new URLSearchParams(r.body).get('client_id');
    return id === clientID;
  });

  it('fetches a token once and reuses it on the next run (client ID/secret in username/password, as the reference)', async () => {
    lifetime = 3600;
    const spec = {
      url: `${api.url}/data`, username: 'client-a', password: { value: 'secret-of-client-a' },
      oauth2: { tokenURL: `${issuer.url}/token`, scope: ['read', 'write'], params: { audience: 'checks' } },
    };
    expect(await run(spec)).toMatchObject({ pass: true, data: { json: { ok: true } } });
    expect(await run(spec)).toMatchObject({ pass: true });
    const sent = tokenRequests('client-a');
    expect(sent).toHaveLength(1);
    // RFC 6749 §4.4.2: form-encoded, credentials in HTTP Basic (§2.3.1)
    expect(sent[0].headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(sent[0].headers.authorization).toBe(basic('client-a', 'secret-of-client-a'));
    expect(Object.fromEntries(new URLSearchParams(sent[0].body))).toEqual({
      grant_type: 'client_credentials', scope: 'read write', audience: 'checks',
    });
  });

  it('fetches a new token when the cached one is about to expire', async () => {
    lifetime = 5; // inside the 10 s refresh margin: expired for the next run
    const spec = { url: `${api.url}/data`, oauth2: { tokenURL: `${issuer.url}/token`, clientID: 'client-b', clientSecret: { value: 'secret-of-client-b' } } };
    expect(await run(spec)).toMatchObject({ pass: true });
    expect(await run(spec)).toMatchObject({ pass: true });
    expect(tokenRequests('client-b')).toHaveLength(2);
    lifetime = 3600;
  });

  it('drops a token the API refuses, so the next run fetches a new one', async () => {
    const spec = { url: `${api.url}/data`, oauth2: { tokenURL: `${issuer.url}/token`, clientID: 'client-f', clientSecret: 'secret-of-client-f' } };
    expect(await run(spec)).toMatchObject({ pass: true });
    issued.clear(); // the API revokes every token
    expect(await run(spec)).toMatchObject({ pass: false, data: { code: 401 } });
    expect(await run(spec)).toMatchObject({ pass: true });
    expect(tokenRequests('client-f')).toHaveLength(2);
  });

  it('falls back to client credentials in the body when the endpoint refuses HTTP Basic', async () => {
    const spec = { url: `${api.url}/data`, oauth2: { tokenURL: `${issuer.url}/body-only/token`, clientID: 'client-c', clientSecret: 'secret-of-client-c' } };
    expect(await run(spec)).toMatchObject({ pass: true });
    const sent = tokenRequests('client-c');
    expect(sent.map((r) => (r.headers.authorization ? 'header' : 'body'))).toEqual(['header', 'body']);
  });

  it('fails with the token endpoint status and error, never the secret, and does not call the API', async () => {
    const before = api.requests.length;
    const r = await run({
      url: `${api.url}/data`,
      oauth2: { tokenURL: `${issuer.url}/token`, clientID: 'client-d', clientSecret: 'Wrong-Client-Secret-9' },
    });
    expect(r.pass).toBe(false);
    expect(r.invalid).toBeFalsy();
    expect(r.error).toBe(`oauth2 token request to ${issuer.url}/token failed: 401 Unauthorized: invalid_client: client authentication failed`);
    expect(JSON.stringify(r)).not.toContain('Wrong-Client-Secret-9');
    expect(api.requests.length).toBe(before);
  });

  it('fails clearly when the token endpoint cannot be reached', async () => {
    const port = await closedPort();
    const r = await run({ url: `${api.url}/data`, oauth2: { tokenURL: `http://127.0.0.1:${port}/token`, clientID: 'client-e', clientSecret: 'secret-e' } });
    expect(r.pass).toBe(false);
    expect(r.error).toBe(`oauth2 token request to http://127.0.0.1:${port}/token failed: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`);
  });
});

// ---- Redirects, as Go's client follows them ----

describe('http check: redirects', () => {
  let a: HttpServer;
  let b: HttpServer;
  beforeAll(async () => {
    b = await startHttpServer((req, res) => sendJson(res, 200, {
      host: req.headers.host, auth: req.headers.authorization ?? null, cookie: req.headers.cookie ?? null,
    }));
    a = await startHttpServer((req, res) => {
      const p = req.url.pathname;
      const go = (code: number, location: string) => {
        res.writeHead(code, { location });
        res.end();
      };
      let m: RegExpExecArray | null;
      if ((m = /^\/hop\/(\d+)$/.exec(p))) return Number(m[1]) > 0 ? go(302, `/hop/${Number(m[1]) - 1}`) : sendJson(res, 200, { landed: true });
      if (p === '/loop') return go(301, '/loop');
      if (p === '/away') return go(302, `http://localhost:${b.port}/landing`);
      if (p === '/stay') return go(307, '/echo');
      if ((m = /^\/post(\d{3})$/.exec(p))) return go(Number(m[1]), '/echo');
      if (p === '/nowhere') return void res.writeHead(302).end('no location');
      if (p === '/ftp') return go(302, 'ftp://127.0.0.1/file');
      sendJson(res, 200, { method: req.method, body: req.body, auth: req.headers.authorization ?? null, type: req.headers['content-type'] ?? null });
    });
  });
  afterAll(() => Promise.all([a?.close(), b?.close()]));

  it('follows a chain of 3 and reports the final url and the count', async () => {
    const r = await run({ url: `${a.url}/hop/3` });
    expect(r).toMatchObject({ pass: true, data: { code: 200, url: `${a.url}/hop/0`, json: { landed: true } } });
    expect(r.detail).toMatchObject({ redirects: 3, url: `${a.url}/hop/0` });
  });

  it('maxRedirects caps the chain with a clear error; 0 returns the 3xx itself', async () => {
    const capped = await run({ url: `${a.url}/hop/3`, maxRedirects: 1 });
    expect(capped).toMatchObject({
      pass: false, data: { code: 302, url: `${a.url}/hop/2` },
      error: `stopped after 1 redirect (maxRedirects 1): 302 to ${a.url}/hop/1`,
    });
    const none = await run({ url: `${a.url}/hop/3`, maxRedirects: 0 });
    expect(none).toMatchObject({ pass: false, error: 'response code 302 not in 200-299', data: { code: 302, url: `${a.url}/hop/3` } });
    expect(await run({ url: `${a.url}/hop/3`, maxRedirects: 0, responseCodes: [302] })).toMatchObject({ pass: true });
  });

  it('stops a redirect loop after 10, as Go does by default', async () => {
    const r = await run({ url: `${a.url}/loop` });
    expect(r).toMatchObject({ pass: false, error: `stopped after 10 redirects: 301 to ${a.url}/loop` });
  });

  it('keeps credentials on the same host and drops them (and cookies) when a redirect leaves it', async () => {
    const same = await run({ url: `${a.url}/stay`, username: 'u', password: 'p' });
    expect(same.data.json).toMatchObject({ auth: basic('u', 'p') });
    const away = await run({ url: `${a.url}/away`, username: 'u', password: 'p', headers: [{ name: 'Cookie', value: 'sid=1' }] });
    expect(away).toMatchObject({ pass: true, data: { url: `http://localhost:${b.port}/landing` } });
    expect(away.data.json).toEqual({ host: `localhost:${b.port}`, auth: null, cookie: null });
    const bearer = await run({ url: `${a.url}/away`, bearer: 'tok' });
    expect(bearer.data.json).toMatchObject({ auth: null });
  });

  it('303 (and 301/302) turn a POST into a GET without body; 307/308 repeat it', async () => {
    const post = { method: 'POST', body: 'payload', headers: { 'Content-Type': 'text/plain' } };
    for (const code of [301, 302, 303]) {
      const r = await run({ url: `${a.url}/post${code}`, ...post });
      expect(r.data.json, String(code)).toEqual({ method: 'GET', body: '', auth: null, type: null });
    }
    for (const code of [307, 308]) {
      const r = await run({ url: `${a.url}/post${code}`, ...post });
      expect(r.data.json, String(code)).toEqual({ method: 'POST', body: 'payload', auth: null, type: 'text/plain' });
    }
  });

  it('a 3xx without Location is the response; a redirect to another scheme fails clearly', async () => {
    expect(await run({ url: `${a.url}/nowhere` })).toMatchObject({ pass: false, error: 'response code 302 not in 200-299' });
    expect(await run({ url: `${a.url}/ftp` })).toMatchObject({ pass: false, error: 'redirect to unsupported protocol ftp:' });
  });
});

describe('http check: a request body', () => {
  let api: HttpServer;
  beforeAll(async () => {
    api = await startHttpServer((req, res) => sendJson(res, 200, { length: req.headers['content-length'] ?? null, body: req.body }));
  });
  afterAll(() => api?.close());

  it('is sent with its Content-Length on a GET too, as Go sends it (not as a second, malformed request)', async () => {
    const r = await run({ url: `${api.url}/echo`, method: 'GET', body: '{"a": "ü"}' });
    expect(r).toMatchObject({ pass: true, data: { json: { length: '11', body: '{"a": "ü"}' } } });
  });
});
