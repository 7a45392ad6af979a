import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthScheduler } from '../../server/modules/health/scheduler.js';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// The Job History page's reads through /api/db, as web/src/features/jobs/api.ts sends them, and the job row lifecycle.

let t: TestContext;
let admin: Record<string, string>;
let viewer: Record<string, string>;
const DAY = 86_400_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const SELECT = 'id,name,agent,resource_id,resource_type,resource_name,status,duration_millis,success_count,error_count,created_at,details';

const get = (query: Record<string, string | string[]>, headers = admin) => {
  const qs = Object.entries(query).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${encodeURIComponent(k)}=${encodeURIComponent(x)}`));
  return t.app.inject({ method: 'GET', url: `/api/db/job_histories?${qs.join('&')}`, headers: { ...headers, prefer: 'count=exact' } });
};
const page = (extra: Record<string, string | string[]>) => ({ select: SELECT, order: 'created_at.desc', limit: '150', offset: '0', ...extra });
type Row = { name: string; status: string; resource_type: string; resource_name: string; duration_millis: number; details: unknown };
const rows = (res: { json(): unknown }) => res.json() as Row[];
const total = (res: { headers: Record<string, unknown> }) => Number(String(res.headers['content-range']).split('/')[1]);

let canaryId: string;

beforeAll(async () => {
  t = await createTestApp({ MODE: 'agent' });
  admin = await bearerHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  viewer = await sessionHeaders(t.db, (await makePerson(t.db)).id);
  canaryId = (await t.db.query(`INSERT INTO canaries (name, namespace, spec, source) VALUES ('web-checks', 'default', '{}', 'UI') RETURNING id`)).rows[0].id;
  // 12 runs: 3 jobs x 4 statuses, one an hour apart, the Scraper ones 3 days old, durations 0..11 s
  await t.db.query(
    `INSERT INTO job_history (name, resource_type, resource_id, status, success_count, error_count, duration_millis, details, created_at)
     SELECT (ARRAY['Canary', 'Topology', 'Scraper'])[1 + (g % 3)],
            (ARRAY['canary', 'topology', 'config_scraper'])[1 + (g % 3)],
            CASE WHEN g % 3 = 0 THEN $1 ELSE 'res-' || g END,
            (ARRAY['SUCCESS', 'FAILED', 'WARNING', 'RUNNING'])[1 + (g % 4)],
            g, g % 4, g * 1000,
            CASE WHEN g % 4 = 1 THEN jsonb_build_object('errors', jsonb_build_array('boom ' || g)) END,
            now() - make_interval(hours => g) - CASE WHEN g % 3 = 2 THEN interval '3 days' ELSE interval '0' END
     FROM generate_series(0, 11) g`,
    [canaryId],
  );
});
afterAll(() => t.close());

describe('GET /api/db/job_histories as the Job History page sends it', () => {
  it('defaults: status=neq.SUCCESS, newest first, the exact total in Content-Range', async () => {
    const res = await get(page({ status: 'neq.SUCCESS' }));
    expect(res.statusCode, res.body).toBe(200);
    expect(rows(res).map((r) => r.status).sort()).toEqual(['FAILED', 'FAILED', 'FAILED', 'RUNNING', 'RUNNING', 'RUNNING', 'WARNING', 'WARNING', 'WARNING']);
    expect(total(res)).toBe(9);
    expect(res.headers['content-range']).toBe('0-8/9');
    // the canary's runs carry its name; others their resource id
    expect(rows(res).find((r) => r.resource_type === 'canary')?.resource_name).toBe('web-checks');
  });

  it('pages with limit and offset, the total staying the whole match', async () => {
    const res = await get(page({ status: 'neq.SUCCESS', limit: '4', offset: '4' }));
    expect(rows(res)).toHaveLength(4);
    expect(res.headers['content-range']).toBe('4-7/9');
  });

  it('filters by name, resource type, status, minimum duration and a created_at range', async () => {
    const byName = await get(page({ name: 'eq.Topology' }));
    expect(new Set(rows(byName).map((r) => r.name))).toEqual(new Set(['Topology']));
    expect(total(byName)).toBe(4);

    const byType = await get(page({ resource_type: 'eq.config_scraper', status: 'neq.SUCCESS' }));
    expect(rows(byType).every((r) => r.resource_type === 'config_scraper' && r.status !== 'SUCCESS')).toBe(true);
    expect(total(byType)).toBe(3);

    const failed = await get(page({ status: 'eq.FAILED' }));
    expect(total(failed)).toBe(3);

    const slow = await get(page({ duration_millis: 'gte.9000' }));
    expect(rows(slow).map((r) => r.duration_millis).sort()).toEqual([10000, 11000, 9000]);

    // the last 2 days: the Scraper runs (3 days back) are out
    const recent = await get(page({ created_at: [`gte.${ago(2 * DAY)}`, `lte.${ago(0)}`] }));
    expect(total(recent)).toBe(8);
    expect(rows(recent).some((r) => r.name === 'Scraper')).toBe(false);
  });

  it("lists one resource's runs and the job names", async () => {
    const res = await get(page({ resource_id: `eq.${canaryId}` }));
    expect(total(res)).toBe(4);
    const names = await t.app.inject({ method: 'GET', url: '/api/db/job_history_names?order=name.asc', headers: admin });
    expect(names.json()).toEqual([{ name: 'Canary' }, { name: 'Scraper' }, { name: 'Topology' }]);
  });

  it('answers a bad filter with a 400 naming it, not a 500', async () => {
    const badNumber = await get(page({ duration_millis: 'gte.fast' }));
    expect(badNumber.statusCode).toBe(400);
    const badOperator = await get(page({ status: 'notanop.SUCCESS' }));
    expect(badOperator.statusCode).toBe(400);
    expect(badOperator.body).toMatch(/status|notanop/);
    const badColumn = await get(page({ nope: 'eq.1' }));
    expect(badColumn.statusCode).toBe(400);
    expect(badColumn.body).toMatch(/nope/);
  });

  it('is read-only for viewers and closed to the signed-out', async () => {
    expect((await get(page({}), viewer)).statusCode).toBe(200);
    const write = await t.app.inject({ method: 'POST', url: '/api/db/job_history', headers: viewer, payload: { name: 'forged', status: 'SUCCESS' } });
    expect(write.statusCode).toBe(403);
    expect((await get(page({}), {})).statusCode).toBe(401);
  });
});

describe('a canary run in job history', () => {
  it('is RUNNING while its checks run, then that row is completed', async () => {
    const created = await t.app.inject({
      method: 'POST', url: '/api/canary', headers: admin,
      payload: { name: 'slow-run', spec: { schedule: '@every 5m', exec: [{ name: 'sleeps', script: 'sleep 3; echo done', timeout: 20 }] } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const quiet = { info() {}, warn() {}, error() {}, debug() {} };
    const scheduler = new HealthScheduler(t.db, { log: quiet, tickMs: 50, reloadMs: 200, retentionEveryMs: 0 });
    await scheduler.start();
    try {
      const runsOf = async () => rows(await get(page({ resource_id: `eq.${id}`, select: 'id,status,time_end,duration_millis,success_count' }))) as unknown as
        { id: string; status: string; time_end: string | null; duration_millis: number | null; success_count: number | null }[];
      let running: Awaited<ReturnType<typeof runsOf>>[number] | undefined;
      for (let i = 0; i < 300 && !running; i++) {
        running = (await runsOf()).find((r) => r.status === 'RUNNING');
        if (!running) await new Promise((r) => setTimeout(r, 50));
      }
      expect(running, 'a RUNNING row while the check sleeps').toMatchObject({ time_end: null, duration_millis: null });
      let done: Awaited<ReturnType<typeof runsOf>> = [];
      for (let i = 0; i < 300; i++) {
        done = await runsOf();
        if (done[0]?.status !== 'RUNNING') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(done).toHaveLength(1);
      expect(done[0]).toMatchObject({ id: running!.id, status: 'SUCCESS', success_count: 1 });
      expect(done[0].time_end).not.toBeNull();
      expect(done[0].duration_millis).toBeGreaterThanOrEqual(3000);
    } finally {
      await scheduler.stop();
    }
  });
});
