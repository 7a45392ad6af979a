import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_PERSON_ID } from '../../server/modules/playbooks/triggers/canary-trigger.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * Playbook webhooks (issue 14 "Triggers"): `GET|POST /api/playbook/webhook/{path}` without sign-in, each
 * authentication with good and bad credentials (JWT against a JWKS served on loopback by node:http), 404, 401, 413,
 * 429, and the run's `.request`. The engine is off: the run created is what is asserted.
 */

let t: TestContext;
let jwks: Server;
let jwksUri: string;
let signingKey: CryptoKey;
let otherKey: CryptoKey;
const SVIX_SECRET = `whsec_${randomBytes(24).toString('base64')}`;

async function playbook(name: string, path: string, authentication?: Record<string, unknown>, parameters = [{ name: 'who', default: 'someone' }]) {
  const spec = {
    title: name,
    on: { webhook: { path, ...(authentication ? { authentication } : {}) } },
    parameters,
    actions: [{ name: 'say', exec: { script: 'echo {{.request.json.who}}' } }],
  };
  const { rows } = await t.db.query<{ id: string }>(
    `INSERT INTO playbooks (name, namespace, title, spec, source) VALUES ($1, 'default', $1, $2, 'UI') RETURNING id`, [name, spec]);
  return rows[0].id;
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) => t.app.inject({
  method: 'POST', url: `/api/playbook/webhook/${path}`,
  headers: { 'content-type': 'application/json', ...headers },
  payload: typeof body === 'string' ? body : JSON.stringify(body),
});

async function runOf(res: { statusCode: number; json(): { payload: { run_id: string } } }) {
  expect(res.statusCode).toBe(200);
  const { rows } = await t.db.query('SELECT * FROM playbook_runs WHERE id = $1', [res.json().payload.run_id]);
  return rows[0];
}

beforeAll(async () => {
  t = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
  const mine = await generateKeyPair('RS256');
  signingKey = mine.privateKey;
  otherKey = (await generateKeyPair('RS256')).privateKey;
  const pub = await exportJWK(mine.publicKey);
  const body = JSON.stringify({ keys: [{ ...pub, kid: 'k1', alg: 'RS256', use: 'sig' }] });
  jwks = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
  jwksUri = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;

  await playbook('hook-open', 'open');
  await playbook('hook-basic', 'basic', { basic: { username: 'deploy', password: 's3cret' } });
  await playbook('hook-basic-env', 'basic-env', { basic: { username: { value: 'deploy' }, password: { value: 'env-pass' } } });
  await playbook('hook-github', 'team/github', { github: { token: 'gh-token' } });
  await playbook('hook-svix', 'svix', { svix: { secret: SVIX_SECRET, verifyTimestamp: '2m' } });
  await playbook('hook-jwt', 'jwt', { jwt: { jwksUri } });
  await playbook('hook-flood', 'flood');
  await playbook('hook-gone', 'gone');
  await playbook('hook-templated', 'templated', undefined, [{ name: 'who', default: 'by {{.request.json.who}} via {{.request.method}}' }]);
});
afterAll(async () => {
  await t?.close();
  await new Promise((r) => jwks?.close(r));
});

describe('playbook webhooks', () => {
  it('runs the playbook without sign-in: 200 {message, payload: {run_id}}, the request recorded', async () => {
    const res = await post('open?ref=main&ref=dev&x=1', { who: 'alice', n: 2 }, { 'x-custom': 'yes', authorization: 'Bearer private' });
    expect(res.json()).toEqual({ message: 'ok', payload: { run_id: expect.any(String) } });
    const run = await runOf(res);
    expect(run.created_by).toBe(SYSTEM_PERSON_ID);
    expect(run.status).toBe('scheduled');
    expect(run.parameters).toEqual({ who: 'someone' });
    expect(run.request).toMatchObject({
      url: '/api/playbook/webhook/open?ref=main&ref=dev&x=1', method: 'POST',
      params: { ref: ['main', 'dev'], x: '1' }, content: '{"who":"alice","n":2}', json: { who: 'alice', n: 2 },
      headers: { 'x-custom': 'yes', 'content-type': 'application/json', authorization: '***' },
    });
  });

  it('parameter defaults are templates over the request', async () => {
    const run = await runOf(await post('templated', { who: 'bob' }));
    expect(run.parameters).toEqual({ who: 'by bob via POST' });
  });

  it('GET works too; a text body is kept as content without json', async () => {
    const get = await t.app.inject({ method: 'GET', url: '/api/playbook/webhook/open?since=1h' });
    expect((await runOf(get)).request).toMatchObject({ method: 'GET', params: { since: '1h' }, content: '' });
    const text = await t.app.inject({ method: 'POST', url: '/api/playbook/webhook/open', headers: { 'content-type': 'text/plain' }, payload: 'hello' });
    const req = (await runOf(text)).request;
    expect(req.content).toBe('hello');
    expect(req.json).toBeUndefined();
  });

  it('404 for an unknown path (and a deleted playbook\'s), 400 for a body that is not the JSON it claims', async () => {
    expect((await post('nope', {})).statusCode).toBe(404);
    expect((await post('gone', {})).statusCode).toBe(200);
    await t.db.query(`UPDATE playbooks SET deleted_at = now() WHERE name = 'hook-gone'`);
    expect((await post('gone', {})).statusCode).toBe(404);
    expect((await post('open', '{not json')).statusCode).toBe(400);
  });

  it('basic: right credentials 200, wrong or none 401 (literal and EnvVar values)', async () => {
    const b = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
    expect((await post('basic', {}, b('deploy', 's3cret'))).statusCode).toBe(200);
    expect((await post('basic', {}, b('deploy', 'wrong'))).statusCode).toBe(401);
    expect((await post('basic', {})).statusCode).toBe(401);
    expect((await post('basic-env', {}, b('deploy', 'env-pass'))).statusCode).toBe(200);
    expect((await post('basic-env', {}, b('deploy', 's3cret'))).statusCode).toBe(401);
  });

  it('github: X-Hub-Signature-256 over the exact body', async () => {
    const body = '{"action":"opened","number":7}';
    const sig = `sha256=${createHmac('sha256', 'gh-token').update(body).digest('hex')}`;
    const ok = await post('team/github', body, { 'x-hub-signature-256': sig, 'x-github-event': 'pull_request' });
    expect((await runOf(ok)).request.json).toEqual({ action: 'opened', number: 7 });
    expect((await post('team/github', `${body} `, { 'x-hub-signature-256': sig })).statusCode).toBe(401);
    expect((await post('team/github', body)).statusCode).toBe(401);
    const wrongKey = `sha256=${createHmac('sha256', 'other').update(body).digest('hex')}`;
    expect((await post('team/github', body, { 'x-hub-signature-256': wrongKey })).statusCode).toBe(401);
  });

  it('svix: svix-id/-timestamp/-signature with the whsec_ secret; an old timestamp is refused', async () => {
    const body = '{"type":"invoice.paid"}';
    const key = Buffer.from(SVIX_SECRET.slice(6), 'base64');
    const headers = (ts: number, k = key) => {
      const id = `msg_${randomBytes(6).toString('hex')}`;
      const sig = createHmac('sha256', k).update(`${id}.${ts}.${body}`).digest('base64');
      return { 'svix-id': id, 'svix-timestamp': String(ts), 'svix-signature': `v1,${randomBytes(32).toString('base64')} v1,${sig}` };
    };
    const now = Math.floor(Date.now() / 1000);
    expect((await post('svix', body, headers(now))).statusCode).toBe(200);
    expect((await post('svix', body, headers(now, randomBytes(24)))).statusCode).toBe(401);
    expect((await post('svix', body, headers(now - 600))).statusCode).toBe(401);
    expect((await post('svix', body)).statusCode).toBe(401);
  });

  it('jwt: a token signed by a key of the JWKS 200; another key, an expired token or none 401', async () => {
    const sign = (k: CryptoKey, exp = '5m') => new SignJWT({ sub: 'ci' }).setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuedAt().setExpirationTime(exp).sign(k);
    expect((await post('jwt', {}, { authorization: `Bearer ${await sign(signingKey)}` })).statusCode).toBe(200);
    expect((await post('jwt', {}, { authorization: `Bearer ${await sign(otherKey)}` })).statusCode).toBe(401);
    const expired = await new SignJWT({ sub: 'ci' }).setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 3600).setExpirationTime(Math.floor(Date.now() / 1000) - 1800).sign(signingKey);
    expect((await post('jwt', {}, { authorization: `Bearer ${expired}` })).statusCode).toBe(401);
    expect((await post('jwt', {})).statusCode).toBe(401);
  });

  it('413 for a body over 1 MB', async () => {
    const res = await post('open', 'x'.repeat(1024 * 1024 + 1), { 'content-type': 'text/plain' });
    expect(res.statusCode).toBe(413);
  });

  it('is not hidden by playbooks.disable', async () => {
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('playbooks.disable', 'true') ON CONFLICT (name) DO UPDATE SET value = 'true'`);
    try {
      expect((await post('open', {})).statusCode).toBe(200);
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'playbooks.disable'`);
    }
  });

  it('429 past 60 requests a minute for a path; other paths go on', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 61; i++) codes.push((await post('flood', { i })).statusCode);
    expect(codes.slice(0, 60).every((c) => c === 200)).toBe(true);
    expect(codes[60]).toBe(429);
    expect((await post('open', {})).statusCode).toBe(200);
  });
});
