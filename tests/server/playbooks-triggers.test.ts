import Fastify from 'fastify';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaderScheduled } from '../../server/lib/leader-scheduled.js';
import { recordResult } from '../../server/modules/health/queries.js';
import { canaryEventHandler, CHECK_EVENTS, SYSTEM_PERSON_ID } from '../../server/modules/playbooks/triggers/canary-trigger.js';
import { EventConsumer } from '../../server/modules/events/consumer.js';
import type { EventHandler } from '../../server/modules/events/types.js';
import { playbookScheduler } from '../../server/modules/playbooks/triggers/schedule.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * Playbook triggers (issue 14 "Triggers"): check.failed/check.passed written where checks.status flips, the
 * event_queue consumer (SKIP LOCKED, 3 attempts) starting one run per playbook and event, on.schedule on the leader.
 * The engine is off (PLAYBOOK_ENGINE=off): what is asserted is the runs the triggers create, not their execution.
 */

const quiet = { info() {}, warn() {}, debug() {} };
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
});
afterAll(() => t?.close());

let seq = 0;
async function makeCheck(db: pg.Pool, labels: Record<string, string> = {}, status: string | null = 'healthy') {
  const n = ++seq;
  const canary = await db.query<{ id: string }>(
    `INSERT INTO canaries (name, namespace, spec, labels, source) VALUES ($1, 'triggers', '{}', $2, 'UI') RETURNING id`,
    [`canary-${n}-${Date.now()}`, { team: 'ops' }]);
  const check = await db.query<{ id: string }>(
    `INSERT INTO checks (canary_id, type, name, labels, status) VALUES ($1, 'http', $2, $3, $4) RETURNING id`,
    [canary.rows[0].id, `check-${n}`, labels, status]);
  return { canaryId: canary.rows[0].id, checkId: check.rows[0].id, name: `check-${n}` };
}

async function makePlaybook(db: pg.Pool, name: string, on: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const spec = {
    title: name, on,
    parameters: [{ name: 'target', default: 'restart {{.check.name}}' }, { name: 'plain', default: 'x' }],
    actions: [{ name: 'say', exec: { script: 'echo {{.params.target}}' } }],
    ...extra,
  };
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO playbooks (name, namespace, title, spec, source) VALUES ($1, 'default', $1, $2, 'UI') RETURNING id`,
    [name, spec]);
  return rows[0].id;
}

async function flip(db: pg.Pool, check: { checkId: string; canaryId: string }, pass: boolean) {
  await recordResult(db, {
    checkId: check.checkId, canaryId: check.canaryId, time: new Date(), duration: 5, pass, invalid: false,
    message: null, error: pass ? null : 'down', details: null, severity: null, nextRuntime: null,
  });
}

/** A consumer of the test's own (the event queue's, with the playbooks' handler), retrying at once. */
function consumer(db: pg.Pool) {
  const handler = canaryEventHandler(db, quiet);
  const handlers = new Map<string, EventHandler[]>(Object.keys(CHECK_EVENTS).map((n) => [n, [handler]]));
  return new EventConsumer({ db, handlers, log: quiet, retry: { baseSeconds: 0 } });
}

const runsOf = async (playbookId: string, checkId?: string) => (await t.db.query<{ id: string; parameters: Record<string, unknown>; created_by: string; check_id: string; status: string }>(
  `SELECT * FROM playbook_runs WHERE playbook_id = $1 AND ($2::uuid IS NULL OR check_id = $2) ORDER BY created_at`,
  [playbookId, checkId ?? null])).rows;

async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('event_queue: check events', () => {
  it('a check flipping to unhealthy writes check.failed in the same transaction (rolled back: no row)', async () => {
    const check = await makeCheck(t.db);
    const client = await t.db.connect();
    try {
      await client.query('BEGIN');
      await flip(client as unknown as pg.Pool, check, false);
      const inside = await client.query('SELECT name, properties FROM event_queue WHERE event_id = $1', [check.checkId]);
      expect(inside.rows).toEqual([{ name: 'check.failed', properties: { last_runtime: expect.any(String) } }]);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    const after = await t.db.query('SELECT 1 FROM event_queue WHERE event_id = $1', [check.checkId]);
    expect(after.rowCount).toBe(0);
    expect((await t.db.query('SELECT status FROM checks WHERE id = $1', [check.checkId])).rows[0].status).toBe('healthy');
  });

  it('healthy → healthy writes nothing; unhealthy → healthy writes check.passed; a second flip resets its attempts', async () => {
    const check = await makeCheck(t.db, { suite: 'quiet' });
    await flip(t.db, check, true);
    expect((await t.db.query('SELECT 1 FROM event_queue WHERE event_id = $1', [check.checkId])).rowCount).toBe(0);
    await t.db.query("UPDATE checks SET status = 'unhealthy' WHERE id = $1", [check.checkId]);
    await t.db.query("UPDATE event_queue SET attempts = 2, error = 'boom' WHERE event_id = $1", [check.checkId]);
    await t.db.query("UPDATE checks SET status = 'healthy' WHERE id = $1", [check.checkId]);
    await t.db.query("UPDATE checks SET status = 'unhealthy' WHERE id = $1", [check.checkId]);
    const { rows } = await t.db.query<{ name: string; attempts: number; error: string | null }>(
      'SELECT name, attempts, error FROM event_queue WHERE event_id = $1 ORDER BY name', [check.checkId]);
    // consumed by the app's own consumer meanwhile, or still there with its attempts reset
    for (const r of rows) expect([r.attempts, r.error]).toEqual([0, null]);
  });

  it('event_queue_summary groups by name and resource, counting failures', async () => {
    const id = '0190a0a0-0000-7000-8000-000000000001';
    await t.db.query(`INSERT INTO event_queue (name, event_id, error, attempts, last_attempt) VALUES ('config.unhealthy', $1, 'nope', 3, now())`, [id]);
    const { rows } = await t.db.query('SELECT name, pending, failed, most_common_error FROM event_queue_summary WHERE event_id = $1', [id]);
    expect(rows).toEqual([{ name: 'config.unhealthy', pending: 1, failed: 1, most_common_error: 'nope' }]);
    const admin = await makePerson(t.db, { roles: ['admin'] });
    const viewer = await makePerson(t.db, { roles: [] });
    const url = `/api/db/event_queue_summary?event_id=eq.${id}&select=name,pending,failed,average_attempts`;
    const res = await t.app.inject({ url, headers: await sessionHeaders(t.db, admin.id) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ name: 'config.unhealthy', pending: 1, failed: 1, average_attempts: 3 }]);
    // the Event Queue page's counts: every role reads them (issue 15); the rows themselves stay with admins and editors
    expect((await t.app.inject({ url, headers: await sessionHeaders(t.db, viewer.id) })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/db/event_queue?limit=1', headers: await sessionHeaders(t.db, viewer.id) })).statusCode).toBe(403);
  });
});

describe('on.canary: the consumer', () => {
  it('starts exactly one run per matching playbook and event, with two more consumers racing the app\'s', async () => {
    const a = await makePlaybook(t.db, 'race-a', { canary: [{ event: 'failed', labels: { suite: 'race' } }] });
    const b = await makePlaybook(t.db, 'race-b', { canary: [{ event: 'failed', labels: { suite: 'race' } }, { event: 'failed', filter: "check.type == 'http'" }] });
    const wrongLabel = await makePlaybook(t.db, 'race-label', { canary: [{ event: 'failed', labels: { suite: 'other' } }] });
    const wrongFilter = await makePlaybook(t.db, 'race-filter', { canary: [{ event: 'failed', labels: { suite: 'race' }, filter: "check.type == 'tcp'" }] });
    const wrongEvent = await makePlaybook(t.db, 'race-event', { canary: [{ event: 'passed', labels: { suite: 'race' } }] });
    const c1 = consumer(t.db);
    const c2 = consumer(t.db);
    const checks = [await makeCheck(t.db, { suite: 'race' }), await makeCheck(t.db, { suite: 'race' })];
    for (const c of checks) await flip(t.db, c, false);
    await Promise.all([c1.drain(), c2.drain(), c1.drain(), c2.drain()]);
    for (const c of checks) {
      await until(() => t.db.query('SELECT 1 FROM event_queue WHERE event_id = $1', [c.checkId]), (r) => r.rowCount === 0);
      for (const p of [a, b]) {
        const runs = await runsOf(p, c.checkId);
        expect(runs).toHaveLength(1);
        expect(runs[0].created_by).toBe(SYSTEM_PERSON_ID);
        expect(runs[0].parameters).toEqual({ target: `restart ${c.name}`, plain: 'x' });
        expect(runs[0].status).toBe('scheduled');
      }
    }
    for (const p of [wrongLabel, wrongFilter, wrongEvent]) expect(await runsOf(p)).toHaveLength(0);
    // a replay of the queue finds nothing to do; a row put back (a crash between the run and the delete) starts nothing
    await Promise.all([c1.drain(), c2.drain()]);
    // (the same row: its id and created_at, as recorded with the run it started, 0108)
    const started = (await t.db.query<{ event_key: string }>(
      'SELECT event_key FROM playbook_trigger_events WHERE run_id = $1', [(await runsOf(a, checks[0].checkId))[0].id])).rows[0];
    const [rowId, writtenAt] = started.event_key.split('@');
    await t.db.query(`INSERT INTO event_queue (id, name, event_id, created_at) VALUES ($1, 'check.failed', $2, $3)`, [rowId, checks[0].checkId, writtenAt]);
    await c1.drain();
    await until(() => t.db.query('SELECT 1 FROM event_queue WHERE event_id = $1', [checks[0].checkId]), (r) => r.rowCount === 0);
    expect(await runsOf(a, checks[0].checkId)).toHaveLength(1);
    // the check passing again, then failing again, is a new event: a second run
    await flip(t.db, checks[0], true);
    await flip(t.db, checks[0], false);
    await c1.drain();
    const again = await until(() => runsOf(a, checks[0].checkId), (r) => r.length === 2);
    expect(again).toHaveLength(2);
    // and the recovery in between was a check.passed: the playbook on `passed` ran for it
    expect(await until(() => runsOf(wrongEvent, checks[0].checkId), (r) => r.length === 1)).toHaveLength(1);
  });

  it('on.canary event passed runs when the check recovers', async () => {
    const p = await makePlaybook(t.db, 'on-passed', { canary: [{ event: 'passed', labels: { suite: 'recover' } }] });
    const check = await makeCheck(t.db, { suite: 'recover' }, 'unhealthy');
    await flip(t.db, check, true);
    await consumer(t.db).drain();
    expect(await until(() => runsOf(p, check.checkId), (r) => r.length === 1)).toHaveLength(1);
  });

  it('an event that keeps failing is tried 3 times, then kept with its error; the other playbooks ran once', async () => {
    const good = await makePlaybook(t.db, 'retry-good', { canary: [{ event: 'failed', labels: { suite: 'retry' } }] });
    await makePlaybook(t.db, 'retry-broken', { canary: [{ event: 'failed', labels: { suite: 'retry' }, filter: 'check.no_such_field == 1' }] });
    const check = await makeCheck(t.db, { suite: 'retry' });
    await flip(t.db, check, false);
    const c = consumer(t.db);
    const row = await until(async () => {
      await c.drain();
      return (await t.db.query<{ attempts: number; error: string; last_attempt: Date | null }>(
        'SELECT attempts, error, last_attempt FROM event_queue WHERE event_id = $1', [check.checkId])).rows[0];
    }, (r) => r?.attempts === 3);
    expect(row.attempts).toBe(3);
    expect(row.error).toContain('playbook default/retry-broken');
    expect(row.last_attempt).toBeInstanceOf(Date);
    await c.drain();
    expect((await t.db.query('SELECT attempts FROM event_queue WHERE event_id = $1', [check.checkId])).rows[0].attempts).toBe(3);
    expect(await runsOf(good, check.checkId)).toHaveLength(1);
  });

  it('the app\'s own consumer is woken by the flip (no consumer of the test\'s)', async () => {
    const p = await makePlaybook(t.db, 'wake', { canary: [{ event: 'failed', labels: { suite: 'wake' } }] });
    const check = await makeCheck(t.db, { suite: 'wake' });
    await flip(t.db, check, false);
    expect(await until(() => runsOf(p, check.checkId), (r) => r.length === 1)).toHaveLength(1);
  });
});

describe('figures (printed, not asserted)', () => {
  it('drains 300 check events with two consumers; a flip reaches a run through the app\'s wake-up', async () => {
    const p = await makePlaybook(t.db, 'bench', { canary: [{ event: 'failed', labels: { suite: 'bench' } }] });
    const checks = [];
    for (let i = 0; i < 300; i++) checks.push(await makeCheck(t.db, { suite: 'bench' }));
    // written in one statement, as a burst of failures would be, before any consumer of the test's runs
    await t.db.query(`INSERT INTO event_queue (name, event_id) SELECT 'check.failed', unnest($1::uuid[])`, [checks.map((c) => c.checkId)]);
    const c1 = consumer(t.db);
    const c2 = consumer(t.db);
    const start = performance.now();
    await Promise.all([c1.drain(), c2.drain()]);
    await until(async () => (await t.db.query("SELECT count(*)::int AS n FROM event_queue WHERE name = 'check.failed'")).rows[0].n, (n) => n === 0);
    const secs = (performance.now() - start) / 1000;
    expect(await runsOf(p)).toHaveLength(300);
    const lat: number[] = [];
    for (let i = 0; i < 10; i++) {
      const c = await makeCheck(t.db, { suite: 'bench' });
      const t0 = performance.now();
      await flip(t.db, c, false);
      await until(() => runsOf(p, c.checkId), (r) => r.length === 1, 10_000);
      lat.push(performance.now() - t0);
    }
    lat.sort((a, b) => a - b);
    console.log(`[figures] 300 check events → 300 runs with 2 consumers (+ the app's): ${secs.toFixed(2)} s, ${(300 / secs).toFixed(0)} events/s; ` +
      `flip → run via NOTIFY (10 samples, 100 ms poll): median ${lat[5].toFixed(0)} ms, max ${lat[9].toFixed(0)} ms`);
  }, 120_000);
});

describe('on.schedule', () => {
  it('creates runs on the leader only, with the entry\'s parameters over the defaults', async () => {
    const s = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
    // the test app itself always leads: closed, so that only the scheduler below (whose leadership we hold) runs
    await s.app.close();
    const listeners = new Set<(leads: boolean) => void>();
    let leads = false;
    const app = Fastify();
    app.decorate('leadership', { isLeader: () => leads, onChange: (fn: (l: boolean) => void) => (listeners.add(fn), () => listeners.delete(fn)) });
    leaderScheduled(app, { name: 'test schedules', relation: 'playbooks', create: () => playbookScheduler({ db: s.db, log: quiet }) });
    try {
      const { rows } = await s.db.query<{ id: string }>(
        `INSERT INTO playbooks (name, namespace, title, spec, source) VALUES ('every-second', 'default', 'every-second', $1, 'UI') RETURNING id`,
        [{ on: { schedule: [{ schedule: '@every 1s', parameters: { target: 'from schedule' } }] },
          parameters: [{ name: 'target', default: 'default' }, { name: 'other', default: 'kept' }],
          actions: [{ name: 'say', exec: { script: 'echo hi' } }] }]);
      await app.ready();
      const count = async () => (await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM playbook_runs WHERE playbook_id = $1', [rows[0].id])).rows[0].n;
      await new Promise((r) => setTimeout(r, 2_500));
      expect(await count()).toBe(0);
      leads = true;
      for (const fn of listeners) fn(true);
      expect(await until(count, (n) => n >= 2)).toBeGreaterThanOrEqual(2);
      const run = (await s.db.query('SELECT parameters, created_by FROM playbook_runs WHERE playbook_id = $1 LIMIT 1', [rows[0].id])).rows[0];
      expect(run).toEqual({ parameters: { target: 'from schedule', other: 'kept' }, created_by: SYSTEM_PERSON_ID });
      leads = false;
      for (const fn of listeners) fn(false);
      await new Promise((r) => setTimeout(r, 300));
      const stopped = await count();
      await new Promise((r) => setTimeout(r, 2_000));
      expect(await count()).toBe(stopped);
    } finally {
      await app.close();
      await s.close();
    }
  });
});
