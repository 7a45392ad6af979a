import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * A check carries its canary's labels, its own winning on a clash (canary-checker does the same), so a label selector
 * over checks (a topology's `checks: [{selector: {labelSelector}}]`, a notification filter) matches either.
 */
let t: TestContext;
let editor: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp();
  editor = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
});
afterAll(async () => t?.close());

it("a check's labels are its canary's merged with its own", async () => {
  const res = await t.app.inject({
    method: 'POST', url: '/api/canary', headers: editor,
    payload: {
      name: 'labelled', labels: { app: 'console', tier: 'web' },
      spec: { schedule: '@never', tcp: [{ name: 'own', endpoint: '127.0.0.1:1', labels: { tier: 'edge', port: 'one' } }, { name: 'bare', endpoint: '127.0.0.1:2' }] },
    },
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
  const { rows } = await t.db.query(`SELECT name, labels FROM checks WHERE canary_id = $1 ORDER BY name`, [res.json().id]);
  expect(rows).toEqual([
    { name: 'bare', labels: { app: 'console', tier: 'web' } },
    { name: 'own', labels: { app: 'console', tier: 'edge', port: 'one' } },
  ]);
});
