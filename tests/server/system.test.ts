import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('probes', () => {
  it('answers /healthz and /readyz once migrated', async () => {
    expect((await t.app.inject('/healthz')).statusCode).toBe(200);
    const ready = await t.app.inject('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ database: true, migrations: true });
  });

  it('reports the app version at /api/about without signing in', async () => {
    const res = await t.app.inject('/api/about');
    expect(res.statusCode).toBe(200);
    expect(res.json().appVersion).toEqual(expect.any(String));
  });

  it('answers unknown API routes with a JSON 404', async () => {
    const res = await t.app.inject('/api/no-such-thing');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: expect.stringContaining('not found') });
  });
});

describe('test helpers', () => {
  it('create people whose sessions and tokens authenticate', async () => {
    const p = await makePerson(t.db, { roles: ['editor'] });
    const s = await sessionHeaders(t.db, p.id);
    const b = await bearerHeaders(t.db, p.id);
    expect(s.cookie).toMatch(/^session=/);
    expect(b.authorization).toMatch(/^Bearer [0-9a-f]{32}\./);
  });
});
