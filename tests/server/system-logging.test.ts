import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp, LOG_REDACT, LOG_SERIALIZERS } from '../../server/app.js';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

// The app's logger at its most verbose, captured: what an operator's log pipeline would receive.
let t: TestContext;
let app: FastifyInstance;
let logs = '';

beforeAll(async () => {
  t = await createTestApp();
  const stream = new Writable({ write(chunk, _enc, done) { logs += chunk; done(); } });
  app = await buildApp(t.config, {
    logger: { level: 'trace', redact: { paths: LOG_REDACT, censor: '[redacted]' }, serializers: LOG_SERIALIZERS, stream },
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await t.close();
});

describe('structured logs', () => {
  it('carry a request id, taken from X-Request-Id when given', async () => {
    const res = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'trace-abc-123' } });
    expect(res.headers['x-request-id']).toBe('trace-abc-123');
    const lines = logs.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.some((l) => l.reqId === 'trace-abc-123' && l.msg === 'request completed')).toBe(true);
  });

  it('never contain credentials: headers, cookies, passwords in bodies, issued session tokens', async () => {
    const person = await makePerson(t.db, { password: 'correct horse battery staple 42', roles: ['viewer'] });
    const bearer = await bearerHeaders(t.db, person.id);
    const secrets = [
      'correct horse battery staple 42', bearer.authorization.slice('Bearer '.length),
      'cookie-secret-7d1e', 'wrong-password-5c9a', 'form-password-2b8f', 'broken-json-password-6e3a', 'basic-secret-1f0c',
    ];
    await app.inject({ url: '/api/auth/whoami', headers: bearer });
    await app.inject({ url: '/api/auth/whoami', headers: { cookie: 'session=cookie-secret-7d1e' } });
    // a kubeconfig for a plain-http console carries its token in the URL (server/lib/kubeproxy-path.ts)
    const viaPath = await app.inject({ url: `/kubeproxy/t/${bearer.authorization.slice('Bearer '.length)}/api/v1` });
    expect(viaPath.statusCode).toBe(503); // authenticated (no cluster here), not 401
    await app.inject({ url: '/api/auth/whoami', headers: { authorization: `Basic ${Buffer.from('token:basic-secret-1f0c').toString('base64')}` } });
    await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: person.email, password: 'wrong-password-5c9a' } });
    await app.inject({
      method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `username=${encodeURIComponent(person.email)}&password=form-password-2b8f`,
    });
    await app.inject({
      method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'application/json' },
      payload: '{"username":"x","password":"broken-json-password-6e3a",',
    });
    const ok = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: person.email, password: 'correct horse battery staple 42' } });
    expect(ok.statusCode).toBe(200);
    const session = /session=([^;]+)/.exec(String(ok.headers['set-cookie']))?.[1];
    expect(session).toBeTruthy();
    await app.inject({ url: '/api/auth/whoami', headers: { cookie: `session=${session}` } });

    expect(logs).toContain('"url":"/api/auth/login"');
    expect(logs).toContain('"url":"/kubeproxy/t/[redacted]/api/v1"'); // the requests were logged...
    for (const secret of [...secrets, session!]) expect(logs).not.toContain(secret); // ...their secrets were not
  });
});
