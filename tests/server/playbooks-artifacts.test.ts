import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/** GET /api/artifacts/download/{id}: a playbook action's artifact (exec `artifacts`), as the run detail links it. */

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
});
afterAll(() => t?.close());

async function artifact(filename: string, type: string, content: string, onAction = true): Promise<string> {
  let actionId: string | null = null;
  if (onAction) {
    const pb = await t.db.query<{ id: string }>(
      `INSERT INTO playbooks (name, namespace, title, spec, source) VALUES ($1, 'default', 'a', '{}', 'UI') RETURNING id`, [`art-${Math.random()}`]);
    const run = await t.db.query<{ id: string }>(`INSERT INTO playbook_runs (playbook_id, spec, status) VALUES ($1, '{}', 'completed') RETURNING id`, [pb.rows[0].id]);
    actionId = (await t.db.query<{ id: string }>(`INSERT INTO playbook_run_actions (playbook_run_id, name, status) VALUES ($1, 'a', 'completed') RETURNING id`, [run.rows[0].id])).rows[0].id;
  }
  const { rows } = await t.db.query<{ id: string }>(
    `INSERT INTO artifacts (playbook_run_action_id, path, filename, content_type, size, checksum, content)
     VALUES ($1, $2, $2, $3, $4, 'x', $5) RETURNING id`, [actionId, filename, type, Buffer.byteLength(content), Buffer.from(content)]);
  return rows[0].id;
}

describe('GET /api/artifacts/download/{id}', () => {
  it('sends the bytes as an attachment to a reader; HTML as bytes; 404 for other artifacts; 401 signed out; 400 a bad id', async () => {
    const viewer = await makePerson(t.db, { roles: ['viewer'] });
    const headers = await sessionHeaders(t.db, viewer.id);
    const txt = await artifact('report ü.txt', 'text/plain', 'hello\n');
    const res = await t.app.inject({ url: `/api/artifacts/download/${txt}`, headers });
    expect(res.statusCode, res.payload).toBe(200);
    expect(res.payload).toBe('hello\n');
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="report _.txt"; filename*=UTF-8''report%20%C3%BC.txt`);
    expect(res.headers['x-content-type-options']).toBe('nosniff');

    const html = await artifact('x.html', 'text/html', '<script>alert(1)</script>');
    const h = await t.app.inject({ url: `/api/artifacts/download/${html}`, headers });
    expect(h.headers['content-type']).toBe('application/octet-stream');

    const other = await artifact('check.txt', 'text/plain', 'not a playbook one', false);
    expect((await t.app.inject({ url: `/api/artifacts/download/${other}`, headers })).statusCode).toBe(404);
    expect((await t.app.inject({ url: '/api/artifacts/download/0190a0a0-0000-7000-8000-0000000000aa', headers })).statusCode).toBe(404);
    expect((await t.app.inject({ url: '/api/artifacts/download/nope', headers })).statusCode).toBe(400);
    expect((await t.app.inject({ url: `/api/artifacts/download/${txt}` })).statusCode).toBe(401);
  });
});
