import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { LiveLogLine, LiveMessage } from '../../server/contracts/events.js';
import { buildApp } from '../../server/app.js';
import { SecretMasker } from '../../server/lib/secret-mask.js';
import { ActionLogWriter } from '../../server/modules/playbooks/log-writer.js';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';
import { connectLive, listen, type LiveClient } from './ws-client.js';

// A run's log lines over /api/ws with real WebSocket clients: watch → watching, the stored backlog after `since`,
// then each line as the engine's log writer stores it (through PostgreSQL NOTIFY, so another replica's watcher gets
// them too), masked, in seq order; unwatch stops them; nobody who did not ask gets any.

let t: TestContext;
let url: string;
let admin: Record<string, string>;
let viewer: Record<string, string>;
let second: FastifyInstance;
let secondUrl: string;
const clients: LiveClient[] = [];
const ids: Record<string, string> = {};

const open = async (headers: Record<string, string>, at = url) => {
  const c = await connectLive(at, headers);
  clients.push(c);
  return c;
};
const one = async (sql: string, values: unknown[] = []) => (await t.db.query(sql, values)).rows[0];
const logs = (c: LiveClient, runId: string) =>
  c.messages.filter((m): m is LiveLogLine => m.type === 'log' && m.run_id === runId);
const until = async (c: LiveClient, runId: string, n: number, ms = 10_000) => {
  await c.next(() => logs(c, runId).length >= n, ms);
  return logs(c, runId);
};
const watch = async (c: LiveClient, runId: string, since?: Record<string, number>) => {
  c.socket.send(JSON.stringify({ type: 'watch', run_id: runId, ...(since && { since }) }));
  await c.next((m: LiveMessage) => m.type === 'watching' && m.run_id === runId);
};
/** A finished run with one action (the engine leaves it alone), and a writer storing lines as the engine does. */
const makeRun = async () => {
  const run = (await one(`INSERT INTO playbook_runs (playbook_id, spec, status) VALUES ($1, '{}', 'completed') RETURNING id`, [ids.playbook])).id as string;
  const action = (await one(`INSERT INTO playbook_run_actions (name, status, playbook_run_id) VALUES ('say', 'completed', $1) RETURNING id`, [run])).id as string;
  return { run, action };
};

beforeAll(async () => {
  t = await createTestApp();
  url = await listen(t.app);
  admin = await bearerHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  viewer = await bearerHeaders(t.db, (await makePerson(t.db)).id);
  ids.playbook = (await one(`INSERT INTO playbooks (name, title, spec, source) VALUES ('p', 'P', $1, 'UI') RETURNING id`,
    [{ actions: [{ name: 'say', exec: { script: 'echo hi' } }] }])).id;
  // a second replica on the same database
  second = await buildApp(t.config, { logger: false });
  await second.ready();
  secondUrl = await listen(second);
});
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});
afterAll(async () => {
  await second?.close();
  await t.close();
});

describe('watching a run\'s log lines', () => {
  it('lines stored after the watch arrive in order, masked, as {type: log, run_id, action_id, seq, stream, text}', async () => {
    const { run, action } = await makeRun();
    const c = await open(viewer);
    await watch(c, run);
    const masker = new SecretMasker();
    masker.add('hunter2-secret');
    const w = new ActionLogWriter(t.db, run, action, masker);
    for (let i = 1; i <= 5; i++) w.write('stdout', `line ${i}\n`);
    w.write('stderr', 'password is hunter2-secret\n');
    await w.close();
    await c.next(() => logs(c, run).some((m) => m.stream === 'stderr' && m.text.endsWith('\n')));
    const got = logs(c, run);
    expect(got.map((m) => m.seq)).toEqual(got.map((_m, i) => i));
    expect(got.filter((m) => m.stream === 'stdout').map((m) => m.text).join('')).toBe('line 1\nline 2\nline 3\nline 4\nline 5\n');
    expect(got.filter((m) => m.stream === 'stderr').map((m) => m.text).join('')).toBe('password is ***\n');
    expect(got.every((m) => m.action_id === action && typeof m.at === 'string')).toBe(true);
  });

  it('the backlog: every stored line on watch, or only those after `since`; then the live ones, none twice', async () => {
    const { run, action } = await makeRun();
    const w = new ActionLogWriter(t.db, run, action, new SecretMasker());
    for (let i = 0; i < 3; i++) w.write('stdout', `old ${i}\n`);
    await w.flush();
    const all = await open(admin);
    await watch(all, run);
    expect((await until(all, run, 3)).map((m) => m.seq)).toEqual([0, 1, 2]);
    const after = await open(admin);
    await watch(after, run, { [action]: 1 });
    w.write('stdout', 'new\n');
    await w.close();
    expect((await until(after, run, 2)).map((m) => [m.seq, m.text])).toEqual([[2, 'old 2\n'], [3, 'new\n']]);
    expect((await until(all, run, 4)).map((m) => m.seq)).toEqual([0, 1, 2, 3]);
  });

  it('a watcher on another replica gets the lines (they travel through the database)', async () => {
    const { run, action } = await makeRun();
    const c = await open(admin, secondUrl);
    await watch(c, run);
    const w = new ActionLogWriter(t.db, run, action, new SecretMasker());
    w.write('stdout', 'from replica one\n');
    await w.close();
    expect((await until(c, run, 1)).map((m) => m.text)).toEqual(['from replica one\n']);
  });

  it('unwatch stops the lines; a connection that did not watch gets none', async () => {
    const { run, action } = await makeRun();
    const watcher = await open(admin);
    const bystander = await open(admin);
    await watch(watcher, run);
    const w = new ActionLogWriter(t.db, run, action, new SecretMasker());
    w.write('stdout', 'one\n');
    await w.flush();
    await until(watcher, run, 1);
    watcher.socket.send(JSON.stringify({ type: 'unwatch', run_id: run }));
    // a marker run watched after the unwatch: once its line arrives, the unwatched run's line would have too
    const marker = await makeRun();
    await watch(watcher, marker.run);
    w.write('stdout', 'two\n');
    await w.close();
    const mw = new ActionLogWriter(t.db, marker.run, marker.action, new SecretMasker());
    mw.write('stdout', 'marker\n');
    await mw.close();
    await until(watcher, marker.run, 1);
    expect(logs(watcher, run).map((m) => m.text)).toEqual(['one\n']);
    expect(bystander.messages.some((m) => m.type === 'log')).toBe(false);
  });

  it('a malformed message is ignored and the connection stays usable', async () => {
    const { run, action } = await makeRun();
    const c = await open(admin);
    c.socket.send('not json');
    c.socket.send(JSON.stringify({ type: 'watch', run_id: 'nope' }));
    c.socket.send(JSON.stringify({ type: 'watch', run_id: run, since: { 'not-a-uuid': 3 } }));
    await c.next((m) => m.type === 'watching' && m.run_id === run);
    const w = new ActionLogWriter(t.db, run, action, new SecretMasker());
    w.write('stdout', 'still here\n');
    await w.close();
    expect((await until(c, run, 1)).map((m) => m.text)).toEqual(['still here\n']);
  });

  it('a real run: the engine\'s exec lines reach a watcher', async () => {
    const id = (await one(`INSERT INTO playbooks (name, title, spec, source) VALUES ('echo', 'Echo', $1, 'UI') RETURNING id`,
      [{ actions: [{ name: 'print', exec: { script: 'for i in 1 2 3; do echo "line $i"; done' } }] }])).id;
    const c = await open(admin);
    const res = await t.app.inject({ method: 'POST', url: '/api/playbook/run', headers: { ...admin, 'content-type': 'application/json' }, payload: { id } });
    expect(res.statusCode, res.payload).toBe(201);
    const run = res.json().run_id as string;
    await watch(c, run);
    const got = await until(c, run, 1, 30_000);
    await c.next(() => logs(c, run).map((m) => m.text).join('').includes('line 3'), 30_000);
    expect(logs(c, run).map((m) => m.text).join('')).toContain('line 1');
    expect(got[0].stream).toBe('stdout');
  });
});
