import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordResult } from '../../server/modules/health/queries.js';
import { startRecorder, type HttpRecorder } from '../support/http-recorder.js';
import { until } from '../support/poll.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * 0109 and the pipeline's caches: the send history's resource_type is written with the row (by the pipeline, else
 * by the trigger) and read by the summary view and its filter; a silence lifted by SQL stops silencing the next send
 * at once (the replica's silence cache is dropped by the silences' NOTIFY in the writer's transaction).
 */

let t: TestContext;
let rec: HttpRecorder;
beforeAll(async () => {
  rec = await startRecorder();
  t = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
});
afterAll(async () => {
  await t?.close();
  await rec?.close();
});

async function makeCheck(db: pg.Pool, name: string, type: string) {
  const canary = await db.query<{ id: string }>(
    `INSERT INTO canaries (name, namespace, spec, source) VALUES ($1, 'history-type', '{}', 'UI') RETURNING id`, [`canary-${name}`]);
  const check = await db.query<{ id: string }>(
    `INSERT INTO checks (canary_id, type, name, status) VALUES ($1, $2, $3, 'healthy') RETURNING id`, [canary.rows[0].id, type, name]);
  return { canaryId: canary.rows[0].id, checkId: check.rows[0].id };
}

async function flip(check: { checkId: string; canaryId: string }, pass: boolean) {
  await recordResult(t.db, {
    checkId: check.checkId, canaryId: check.canaryId, time: new Date(), duration: 5, pass, invalid: false,
    message: null, error: pass ? null : 'down', details: null, severity: null, nextRuntime: null,
  });
}

async function rule(name: string, path: string): Promise<string> {
  const { rows } = await t.db.query<{ id: string }>(
    `INSERT INTO notifications (name, events, custom_services) VALUES ($1, '{check.failed}', $2) RETURNING id`,
    [name, JSON.stringify([{ url: `generic+${rec.url}${path}` }])]);
  return rows[0].id;
}

const rows = async (ruleId: string) => (await t.db.query<{ status: string; resource_type: string | null }>(
  'SELECT status, resource_type FROM notification_send_history WHERE notification_id = $1 ORDER BY created_at, id', [ruleId])).rows;

describe('send history resource_type (0109)', () => {
  it('the pipeline writes it, the trigger fills it for other writers, the summary view filters by it', async () => {
    const id = await rule('typed', '/typed');
    const check = await makeCheck(t.db, 'typed-check', 'tcp');
    await flip(check, false);
    await until(async () => (await rows(id))[0]?.status === 'sent', 'the sent row');
    expect((await rows(id))[0].resource_type).toBe('tcp');
    // a writer that does not give it (SQL, another module): the trigger looks the resource up
    await t.db.query(
      `INSERT INTO notification_send_history (notification_id, status, source_event, resource_id, recipient)
       VALUES ($1, 'error', 'check.failed', $2, '{"kind":"custom","index":0}')`, [id, check.checkId]);
    expect((await rows(id)).map((r) => r.resource_type)).toEqual(['tcp', 'tcp']);
    const typed = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notification_send_history_summary WHERE resource_type = 'tcp' AND notification_id = $1`, [id]);
    expect(typed.rows[0].n).toBe(2);
    const other = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notification_send_history_summary WHERE resource_type = 'http' AND notification_id = $1`, [id]);
    expect(other.rows[0].n).toBe(0);
    const types = (await t.db.query<{ resource_type: string }>('SELECT resource_type FROM notification_send_history_resource_types')).rows;
    expect(types.map((r) => r.resource_type)).toContain('tcp');
  });

  it('a silence lifted by SQL no longer silences the next send (the cache is dropped at its commit)', async () => {
    const id = await rule('lifted', '/lifted');
    const check = await makeCheck(t.db, 'lifted-check', 'http');
    const silence = await t.db.query<{ id: string }>(
      `INSERT INTO notification_silences (name, namespace, check_id, "from", until, source)
       VALUES ('lift-me', 'default', $1, now() - interval '1 minute', now() + interval '1 hour', 'UI') RETURNING id`, [check.checkId]);
    await flip(check, false);
    await until(async () => (await rows(id))[0]?.status === 'silenced', 'the silenced row');
    await flip(check, true);
    await t.db.query('UPDATE notification_silences SET deleted_at = now() WHERE id = $1', [silence.rows[0].id]);
    await flip(check, false);
    // well inside the cache's 30 s lifetime: only the NOTIFY can have dropped the silence
    await until(async () => (await rows(id)).some((r) => r.status === 'sent'), 'the send after the silence was lifted', 15_000);
    expect(rec.on('/lifted')).toHaveLength(1);
  });
});
