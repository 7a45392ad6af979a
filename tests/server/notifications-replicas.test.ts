import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecorder, type HttpRecorder } from '../support/http-recorder.js';
import { until } from '../support/poll.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * Notifications across replicas (issue 15 "Tests"): two console processes on one database send each event once, and
 * a replica SIGKILLed mid-delivery loses no send (at least once: its `sending` rows, once their lease expires, are
 * re-taken by the survivor's sweeper and delivered again).
 * One replica is the test's app, the other a child process running the whole app.
 */

const CHILD = fileURLToPath(new URL('./notifications-replicas-child.ts', import.meta.url));
let t: TestContext;
let db: pg.Pool;
let rec: HttpRecorder;
let child: ChildProcess;

function replica(url: string): Promise<ChildProcess> {
  const c = spawn(process.execPath, ['--import', 'tsx', CHILD, url], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    c.stdout!.on('data', (b: Buffer) => b.toString().includes('ready') && resolve(c));
    c.once('exit', (code) => reject(new Error(`replica exited ${code}`)));
  });
}
async function kill(c: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!c || c.exitCode !== null || c.signalCode !== null) return;
  const gone = new Promise((r) => c.once('exit', r));
  c.kill(signal);
  await gone;
}

// one replica in this process (the test app), one in a child process
beforeAll(async () => {
  rec = await startRecorder();
  t = await createTestApp({ PLAYBOOK_ENGINE: 'off', NOTIFICATION_DELIVERY_LEASE_SECONDS: '2' });
  db = t.db;
  child = await replica(t.config.DATABASE_URL!);
}, 120_000);
afterAll(async () => {
  await kill(child, 'SIGKILL');
  await t?.close();
  await rec?.close();
});

async function checks(n: number, prefix: string): Promise<void> {
  const canary = await db.query<{ id: string }>(
    `INSERT INTO canaries (name, namespace, spec, source) VALUES ($1, 'replicas', '{}', 'UI') RETURNING id`, [`${prefix}-canary`]);
  await db.query(
    `INSERT INTO checks (canary_id, type, name, status) SELECT $1, 'http', $2 || '-' || i, 'healthy' FROM generate_series(1, $3) i`,
    [canary.rows[0].id, prefix, n]);
}
const failAll = (prefix: string) => db.query(`UPDATE checks SET status = 'unhealthy' WHERE name LIKE $1 || '-%'`, [prefix]);
async function rule(path: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO notifications (name, events, custom_services) VALUES ($1, '{check.failed}', $2) RETURNING id`,
    [`rule-${path}`, JSON.stringify([{ url: `generic+${rec.url}/${path}` }])]);
  return rows[0].id;
}
const sentResources = async (ruleId: string) => (await db.query<{ n: number; rows: number }>(
  `SELECT count(DISTINCT resource_id)::int AS n, count(*)::int AS rows FROM notification_send_history
   WHERE notification_id = $1 AND status = 'sent'`, [ruleId])).rows[0];
/** Deliveries some replica has leased and not finished. */
const sending = async (ruleId: string) => (await db.query<{ n: number }>(
  `SELECT count(*)::int AS n FROM notification_send_history WHERE notification_id = $1 AND status = 'sending'`, [ruleId])).rows[0].n;

describe('notifications on two replicas', () => {
  it('two server processes on one database send each event once', async () => {
    const id = await rule('twice');
    await checks(20, 'twice');
    await failAll('twice');
    await until(async () => (await sentResources(id)).n === 20, '20 sends', 60_000);
    await until(async () => (await db.query("SELECT 1 FROM event_queue WHERE name IN ('check.failed', 'notification.send')")).rowCount === 0, 'the queue drained');
    expect(await sentResources(id)).toEqual({ n: 20, rows: 20 });
    expect(rec.on('/twice')).toHaveLength(20);
  }, 60_000);

  it('kill -9 of a replica mid-delivery loses nothing: its leased `sending` rows are re-delivered by the other', async () => {
    rec.script('/killed', { delayMs: 1000 });
    const id = await rule('killed');
    await checks(30, 'killed');
    await failAll('killed');
    await until(async () => rec.on('/killed').length >= 2 && (await sending(id)) >= 2, 'deliveries in flight', 60_000);
    await kill(child, 'SIGKILL');
    expect((await sentResources(id)).n).toBeLessThan(30);
    await until(async () => (await sentResources(id)).n === 30, 'every check sent', 60_000);
    expect(await sending(id)).toBe(0);
    // at least once: a send delivered but not yet recorded when killed may go twice, never none
    expect(new Set(rec.on('/killed').map((r) => r.body)).size).toBe(30);
  }, 60_000);
});
