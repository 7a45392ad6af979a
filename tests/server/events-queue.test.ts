import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { EventConsumer, type EventConsumerOptions } from '../../server/modules/events/consumer.js';
import { enqueueEvent } from '../../server/modules/events/queries.js';
import type { EventHandler } from '../../server/modules/events/types.js';
import { until } from '../support/poll.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * The event queue (issue 15 "Events"): app.eventQueue on every replica, batches claimed with SKIP LOCKED, a failing
 * event's writes rolled back while the others commit once, retries after base · attempts^exponent (properties), max attempts, the per-event timeout, delays, a
 * SIGKILLed replica losing nothing, GET /api/notification/events.
 */

const CHILD = fileURLToPath(new URL('./events-queue-child.ts', import.meta.url));
const quiet = { warn() {}, debug() {} };
let t: TestContext;
let seq = 0;
const uuid = () => `0190a0a0-0000-7000-8000-${String(++seq).padStart(12, '0')}`;

beforeAll(async () => {
  t = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
  await t.db.query('CREATE TABLE test_handled (event_id uuid, by text, at timestamptz DEFAULT clock_timestamp())');
});
afterAll(() => t?.close());

/** Records the event in the consumer's transaction (so it is committed with the row's delete, or not at all). */
const recorder = (by: string): EventHandler => async (e, client) => {
  await client.query('INSERT INTO test_handled (event_id, by) VALUES ($1, $2)', [e.event_id, by]);
};

function consumer(handlers: Record<string, EventHandler[]>, opts: Partial<EventConsumerOptions> = {}) {
  return new EventConsumer({ db: t.db, handlers: new Map(Object.entries(handlers)), log: quiet, sweepMs: 60_000, ...opts });
}

const handled = async (ids: string[]) => (await t.db.query<{ event_id: string; by: string }>(
  'SELECT event_id::text, by FROM test_handled WHERE event_id = ANY($1::uuid[]) ORDER BY at', [ids])).rows;
const row = async (name: string, id: string) => (await t.db.query<{ attempts: number; error: string | null; last_attempt: Date | null }>(
  'SELECT attempts, error, last_attempt FROM event_queue WHERE name = $1 AND event_id = $2', [name, id])).rows[0];
const backdate = (name: string, id: string, secs: number) =>
  t.db.query(`UPDATE event_queue SET last_attempt = now() - make_interval(secs => $3) WHERE name = $1 AND event_id = $2`, [name, id, secs]);

describe('app.eventQueue', () => {
  it('two apps on one database take each event once; the handler\'s writes commit with the delete', async () => {
    const other: FastifyInstance = await buildApp(t.config, { logger: false });
    await other.ready();
    try {
      t.app.eventQueue.on('test.once', recorder('a'));
      other.eventQueue.on('test.once', recorder('b'));
      const ids = Array.from({ length: 60 }, uuid);
      await t.db.query(`INSERT INTO event_queue (name, event_id) SELECT 'test.once', unnest($1::uuid[])`, [ids]);
      t.app.eventQueue.kick();
      other.eventQueue.kick();
      await until(async () => (await t.db.query("SELECT 1 FROM event_queue WHERE name = 'test.once'")).rowCount === 0, 'the queue to drain');
      const rows = await handled(ids);
      expect(rows).toHaveLength(60);
      expect(new Set(rows.map((r) => r.event_id)).size).toBe(60);
      const by = { a: rows.filter((r) => r.by === 'a').length, b: rows.filter((r) => r.by === 'b').length };
      console.log(`[figures] 60 events, two apps: ${by.a} by one, ${by.b} by the other`);
      expect(await t.app.eventQueue.drain()).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('enqueueEvent upserts on (name, event_id), resetting attempts; the app\'s consumer is woken by it', async () => {
    const id = uuid();
    await t.db.query(`INSERT INTO event_queue (name, event_id, attempts, error, last_attempt) VALUES ('test.upsert', $1, 3, 'old', now())`, [id]);
    await enqueueEvent(t.db, { name: 'test.upsert', event_id: id, properties: { n: 1 } });
    expect((await t.db.query('SELECT attempts, error, last_attempt, properties FROM event_queue WHERE event_id = $1', [id])).rows)
      .toEqual([{ attempts: 0, error: null, last_attempt: null, properties: { n: 1 } }]);
    t.app.eventQueue.on('test.upsert', recorder('app'));
    const woken = uuid();
    await enqueueEvent(t.db, { name: 'test.upsert', event_id: woken });
    await until(async () => (await handled([id, woken])).length === 2, 'the app to handle both');
  });
});

describe('retries', () => {
  it('a failure is retried after base · attempts^exponent (properties), up to max attempts, then kept with its error', async () => {
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('events.retry.base', '10s'), ('events.retry.exponent', '2'), ('events.max_attempts', '3')`);
    try {
      let calls = 0;
      const c = consumer({ 'test.retry': [async () => { calls++; throw new Error(`boom ${calls}`); }] });
      const id = uuid();
      await enqueueEvent(t.db, { name: 'test.retry', event_id: id });
      expect(await c.drain()).toBe(1);
      expect(await row('test.retry', id)).toMatchObject({ attempts: 1, error: 'boom 1' });
      expect(await c.drain()).toBe(0); // due 10 s · 1^2 after the attempt
      await backdate('test.retry', id, 9);
      expect(await c.drain()).toBe(0);
      await backdate('test.retry', id, 11);
      expect(await c.drain()).toBe(1);
      expect(await row('test.retry', id)).toMatchObject({ attempts: 2, error: 'boom 2' });
      await backdate('test.retry', id, 39); // due 10 s · 2^2 = 40 s after
      expect(await c.drain()).toBe(0);
      await backdate('test.retry', id, 41);
      expect(await c.drain()).toBe(1);
      await backdate('test.retry', id, 86_400);
      expect(await c.drain()).toBe(0); // 3 attempts: left alone
      const last = await row('test.retry', id);
      expect([last.attempts, last.error, calls]).toEqual([3, 'boom 3', 3]);
      expect(last.last_attempt).toBeInstanceOf(Date);
      const { rows } = await t.db.query('SELECT pending, failed, most_common_error FROM event_queue_summary WHERE event_id = $1', [id]);
      expect(rows).toEqual([{ pending: 1, failed: 1, most_common_error: 'boom 3' }]);
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name LIKE 'events.%'`);
    }
  });

  it('a poison event reaches max attempts, its writes rolled back each time; the events around it are handled once', async () => {
    const poison = uuid();
    const good = Array.from({ length: 5 }, uuid);
    const c = consumer({
      'test.poison': [async (e, client) => {
        await client.query('INSERT INTO test_handled (event_id, by) VALUES ($1, $2)', [e.event_id, 'poison']);
        throw new Error('poisoned');
      }],
      'test.good': [recorder('good')],
    }, { retry: { baseSeconds: 0 }, batchSize: 3 });
    await enqueueEvent(t.db, { name: 'test.good', event_id: good[0] });
    await enqueueEvent(t.db, { name: 'test.poison', event_id: poison, priority: 200 });
    for (const id of good.slice(1)) await enqueueEvent(t.db, { name: 'test.good', event_id: id });
    for (let i = 0; i < 5; i++) await c.drain();
    expect(await row('test.poison', poison)).toMatchObject({ attempts: 3, error: 'poisoned' });
    expect(await handled([poison])).toEqual([]);
    expect((await handled(good)).map((r) => r.event_id).sort()).toEqual([...good].sort());
    expect((await t.db.query("SELECT 1 FROM event_queue WHERE name = 'test.good'")).rowCount).toBe(0);
  });

  it('a handler that hangs (or whose query hangs) fails its attempt after the timeout; the others go on', async () => {
    const [stuck, slowSql, fine] = [uuid(), uuid(), uuid()];
    const c = consumer({
      'test.stuck': [() => new Promise(() => undefined)],
      'test.slowsql': [async (_e, client) => void (await client.query('SELECT pg_sleep(30)'))],
      'test.fine': [recorder('fine')],
    }, { timeoutMs: 400, retry: { baseSeconds: 3600 } });
    await enqueueEvent(t.db, { name: 'test.stuck', event_id: stuck, priority: 300 });
    await enqueueEvent(t.db, { name: 'test.slowsql', event_id: slowSql, priority: 200 });
    await enqueueEvent(t.db, { name: 'test.fine', event_id: fine });
    await c.drain();
    await c.drain();
    expect(await row('test.stuck', stuck)).toMatchObject({ attempts: 1, error: 'timed out after 400 ms' });
    expect((await row('test.slowsql', slowSql)).attempts).toBe(1);
    expect(await handled([fine])).toHaveLength(1);
  });

  it('a slow handler holds up its own batch only: the replica\'s other workers take what comes meanwhile', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let entered = false;
    const c = consumer({
      'test.slow': [async () => { entered = true; await released; }],
      'test.fast': [recorder('fast')],
    }, { concurrency: 2 });
    c.start();
    try {
      const slow = uuid();
      const fast = uuid();
      await enqueueEvent(t.db, { name: 'test.slow', event_id: slow });
      c.kick();
      await until(async () => entered, 'the slow handler to start');
      await enqueueEvent(t.db, { name: 'test.fast', event_id: fast });
      c.kick();
      await until(async () => (await handled([fast])).length === 1, 'the fast event, while the slow one is still running');
      expect(await row('test.slow', slow)).toBeDefined();
      release();
      await until(async () => !(await row('test.slow', slow)), 'the slow event to finish');
    } finally {
      release();
      await c.stop();
    }
  });

  it('delay: an event is not taken before created_at + delay', async () => {
    const id = uuid();
    const c = consumer({ 'test.delay': [recorder('delay')] });
    await enqueueEvent(t.db, { name: 'test.delay', event_id: id, delay_ms: 60_000 });
    expect(await c.drain()).toBe(0);
    await t.db.query("UPDATE event_queue SET created_at = now() - interval '61 seconds' WHERE event_id = $1", [id]);
    expect(await c.drain()).toBe(1);
    expect(await handled([id])).toHaveLength(1);
  });

  it('an idle consumer waits for a wake-up: with nothing queued it does not poll the database', async () => {
    let statements = 0;
    const counted = {
      query: (...args: unknown[]) => (statements++, (t.db.query as (...a: unknown[]) => unknown)(...args)),
      connect: () => (statements++, t.db.connect()),
    } as unknown as typeof t.db;
    const c = consumer({ 'test.idle-nothing-queued': [recorder('idle')] }, { db: counted });
    c.start();
    try {
      await new Promise((r) => setTimeout(r, 1000));
      // the start's one pass (claim + next-due look-up); re-arming on an empty queue's due time of 0 made ~200 a second
      expect(statements).toBeLessThan(10);
    } finally {
      await c.stop();
    }
  });
});

describe('at least once', () => {
  it('a replica SIGKILLed mid-batch loses nothing: its batch returns to the queue, each event is handled once', async () => {
    const ids = Array.from({ length: 30 }, uuid);
    await t.db.query(`INSERT INTO event_queue (name, event_id, created_at)
      SELECT 'test.kill', id, now() + make_interval(secs => n / 1000.0) FROM unnest($1::uuid[]) WITH ORDINALITY AS u(id, n)`, [ids]);
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, t.config.DATABASE_URL!, '25'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => d.toString().includes('hung') && resolve());
        child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
      });
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((r) => child.once('exit', r));
    // its first batch of 20 committed; the second (4 handled, the 5th hanging) died with it
    const byChild = await handled(ids);
    expect(byChild).toHaveLength(20);
    const c = consumer({ 'test.kill': [recorder('survivor')] });
    await until(async () => (await c.drain(), (await t.db.query("SELECT 1 FROM event_queue WHERE name = 'test.kill'")).rowCount === 0),
      'the survivor to take the rest (the dead connection\'s locks released)');
    const all = await handled(ids);
    expect(all).toHaveLength(30);
    expect(new Set(all.map((r) => r.event_id)).size).toBe(30);
    expect(all.filter((r) => r.by === 'survivor')).toHaveLength(10);
  });
});

describe('GET /api/notification/events', () => {
  it('lists every event name with its kind and its latest 20 rows, to every role; 401 signed out', async () => {
    const ids = Array.from({ length: 25 }, uuid);
    await t.db.query(`INSERT INTO event_queue (name, event_id, attempts, error, last_attempt, created_at)
      SELECT 'config.unhealthy', id, 3, 'gone', now(), now() - make_interval(secs => n) FROM unnest($1::uuid[]) WITH ORDINALITY AS u(id, n)`, [ids]);
    const viewer = await makePerson(t.db, { roles: [] });
    const res = await t.app.inject({ url: '/api/notification/events', headers: await sessionHeaders(t.db, viewer.id) });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ name: string; kind: string | null; events: { event_id: string; error: string; attempts: number }[] }[]>();
    const config = body.find((e) => e.name === 'config.unhealthy')!;
    expect(config.kind).toBe('config');
    expect(config.events).toHaveLength(20);
    expect(config.events.map((e) => e.event_id)).toEqual(ids.slice(0, 20));
    expect(config.events[0]).toMatchObject({ error: 'gone', attempts: 3 });
    expect(body.find((e) => e.name === 'incident.status.resolved')).toMatchObject({ kind: 'incident' });
    expect(body.find((e) => e.name === 'check.failed')).toMatchObject({ kind: 'check' });
    expect((await t.app.inject({ url: '/api/notification/events' })).statusCode).toBe(401);
  });
});

