import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRetention } from '../modules/health/retention.js';
import { createTestApp, type TestContext } from '../../tests/server/helpers.js';
import { markStaleJobs, recordJob, startJob } from './job-history.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp({ MODE: 'agent' });
});
afterAll(() => t.close());

const rowsOf = async (resourceId: string) => (await t.db.query(
  `SELECT id, name, status, success_count, error_count, details, time_start, time_end, duration_millis, hostname, agent_id
   FROM job_history WHERE resource_id = $1 ORDER BY created_at`, [resourceId],
)).rows;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const v = await fn();
    if (v) return v;
    await sleep(50);
  }
  throw new Error(`gave up waiting: ${what}`);
}

describe('startJob', () => {
  it('writes a RUNNING row at start, then completes that same row', async () => {
    const job = startJob(t.db, { name: 'Sync', resourceType: 'config_scraper', resourceId: 'lib-1' });
    const [running] = await until('the RUNNING row', async () => {
      const r = await rowsOf('lib-1');
      return r.length ? r : null;
    });
    expect(running).toMatchObject({ name: 'Sync', status: 'RUNNING', time_end: null, duration_millis: null });
    expect(running.agent_id).toBe('00000000-0000-0000-0000-000000000000');
    expect(running.hostname).toBeTruthy();
    await job.finish({ status: 'WARNING', successCount: 3, errorCount: 1, details: { errors: ['one bad'] } });
    const rows = await rowsOf('lib-1');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: running.id, status: 'WARNING', success_count: 3, error_count: 1, details: { errors: ['one bad'] },
    });
    expect(rows[0].time_end.getTime()).toBeGreaterThanOrEqual(rows[0].time_start.getTime());
    expect(rows[0].duration_millis).toBe(rows[0].time_end.getTime() - rows[0].time_start.getTime());
  });

  it('a job that ends before showRunningAfterMs writes one complete row, never a RUNNING one', async () => {
    const job = startJob(t.db, { name: 'Quick', resourceType: 'canary', resourceId: 'lib-2' }, { showRunningAfterMs: 60_000 });
    await sleep(100);
    expect(await rowsOf('lib-2')).toEqual([]);
    await job.finish({ status: 'SUCCESS', successCount: 1, errorCount: 0 });
    expect(await rowsOf('lib-2')).toMatchObject([{ status: 'SUCCESS', success_count: 1, error_count: 0, details: null }]);
  });

  it('a job still going after showRunningAfterMs shows as RUNNING until it ends', async () => {
    const job = startJob(t.db, { name: 'Slow', resourceType: 'canary', resourceId: 'lib-3' }, { showRunningAfterMs: 200 });
    await until('the RUNNING row', async () => (await rowsOf('lib-3'))[0]?.status === 'RUNNING');
    await job.finish({ status: 'FAILED', successCount: 0, errorCount: 2 });
    expect(await rowsOf('lib-3')).toMatchObject([{ status: 'FAILED', error_count: 2 }]);
  });

  it('abandon leaves a shown RUNNING row STALE, and writes nothing for one never shown', async () => {
    const shown = startJob(t.db, { name: 'Cut', resourceType: 'canary', resourceId: 'lib-4' });
    await until('the RUNNING row', async () => (await rowsOf('lib-4')).length);
    await shown.abandon();
    expect(await rowsOf('lib-4')).toMatchObject([{ status: 'STALE' }]);
    const hidden = startJob(t.db, { name: 'Cut', resourceType: 'canary', resourceId: 'lib-5' }, { showRunningAfterMs: 60_000 });
    await hidden.abandon();
    await hidden.finish({ status: 'SUCCESS', successCount: 1, errorCount: 0 });
    expect(await rowsOf('lib-5')).toEqual([]);
  });

  it('recordJob writes one complete row', async () => {
    await recordJob(t.db, { name: 'Refused', resourceType: 'canary', resourceId: 'lib-6', status: 'FAILED', successCount: 0, errorCount: 1, details: { error: 'bad schedule' } });
    expect(await rowsOf('lib-6')).toMatchObject([{ status: 'FAILED', duration_millis: 0, details: { error: 'bad schedule' } }]);
  });
});

describe('stale RUNNING rows', () => {
  it('are marked STALE past the age, and retention does it while writing its own RUNNING-then-SUCCESS row', async () => {
    await t.db.query(`INSERT INTO job_history (name, resource_type, resource_id, status, time_start, created_at) VALUES
      ('Canary', 'canary', 'old-run', 'RUNNING', now() - interval '2 hours', now() - interval '2 hours'),
      ('Canary', 'canary', 'new-run', 'RUNNING', now() - interval '5 minutes', now() - interval '5 minutes')`);
    expect(await markStaleJobs(t.db, 3 * 3_600_000)).toBe(0);
    const deleted = await runRetention(t.db);
    expect(deleted).toHaveProperty('job_history');
    expect((await rowsOf('old-run'))[0].status).toBe('STALE');
    expect((await rowsOf('new-run'))[0].status).toBe('RUNNING');
    const own = await rowsOf('check_statuses');
    expect(own).toMatchObject([{ name: 'CheckStatusRetention', status: 'SUCCESS', details: { stale: 1 } }]);
    expect(own[0].time_end).not.toBeNull();
  });
});
