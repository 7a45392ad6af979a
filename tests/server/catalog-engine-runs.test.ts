import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { applyRetention } from '../../server/modules/catalog/engine/retention.js';
import { ScrapeRunner } from '../../server/modules/catalog/engine/runner.js';
import { CatalogScheduler, configFeatureOn, scraperSchedule } from '../../server/modules/catalog/engine/scheduler.js';
import { saveResult } from '../../server/modules/catalog/engine/save.js';
import { SCRAPER_TYPES } from '../../server/modules/catalog/scrapers.js';
import { emptyResult, type ScrapedItem, type ScrapeResult, type ScraperType } from '../../server/modules/catalog/types.js';
import type { LiveMessage } from '../../server/contracts/events.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * The engine around the save: runs (job history, status), Run Now with roles and the feature flag, the scheduler,
 * retention and live events. A test-only scraper type, whose output each test sets, stands in for the extractors.
 */
let next: () => Promise<ScrapeResult> = async () => emptyResult();
const engineTest: ScraperType = { key: 'enginetest', scrape: () => next() };
(SCRAPER_TYPES as Record<string, ScraperType>).enginetest = engineTest;

let t: TestContext;
let admin: Record<string, string>;
let editor: Record<string, string>;
let viewer: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp();
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  editor = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['editor'] })).id);
  viewer = await sessionHeaders(t.db, (await makePerson(t.db)).id);
});
afterAll(async () => {
  await t?.close();
});

async function makeScraper(spec: Record<string, unknown> = { schedule: '@never', enginetest: [{}] }): Promise<string> {
  const { rows } = await t.db.query<{ id: string }>(
    `INSERT INTO config_scrapers (name, namespace, spec, source) VALUES ($1, 'default', $2, 'UI') RETURNING id`,
    [`s-${Math.random().toString(36).slice(2, 8)}`, spec]);
  return rows[0].id;
}
const item = (ext: string, more: Partial<ScrapedItem> = {}): ScrapedItem => ({
  externalId: ext, name: ext, type: 'Test::Thing', configClass: 'Thing', config: { ext }, ...more,
});
const result = (more: Partial<ScrapeResult>): ScrapeResult => ({ ...emptyResult(), ...more });
const runNow = (id: string, headers = admin) => t.app.inject({ method: 'POST', url: `/api/config/run/${id}`, headers });
const until = async <T>(fn: () => Promise<T | undefined>, what: string): Promise<T> => {
  for (let i = 0; i < 200; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}`);
};

describe('POST /api/config/run/{id}', () => {
  it('runs the scraper, waits for it, and records one job_history row with the scrape summary', async () => {
    const id = await makeScraper();
    next = async () => result({ items: [item('a'), item('b')] });
    const res = await runNow(id);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe('SUCCESS');
    const { rows } = await t.db.query('SELECT * FROM job_history WHERE id = $1', [body.job_history_id]);
    expect(rows[0]).toMatchObject({ name: 'Scraper', resource_type: 'config_scraper', resource_id: id, status: 'SUCCESS', success_count: 2 });
    expect(rows[0].details).toEqual({ errors: [], scrape_summary: { config_types: { 'Test::Thing': { added: 2, updated: 0, unchanged: 0, changes: 0 } } } });
  });

  it('is WARNING when a run has errors but saved items, FAILED when it saved nothing', async () => {
    const id = await makeScraper();
    next = async () => result({ items: [item('a')], errors: ['items[1]: $.name: no match'] });
    const warned = (await runNow(id, editor)).json();
    expect(warned.status).toBe('WARNING');
    const { rows } = await t.db.query('SELECT details FROM job_history WHERE id = $1', [warned.job_history_id]);
    expect(rows[0].details.errors).toEqual(['spec.enginetest.0: items[1]: $.name: no match']);
    next = async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:1');
    };
    const failed = (await runNow(id)).json();
    expect(failed.status).toBe('FAILED');
    // the failed run deleted nothing
    const live = await t.db.query('SELECT count(*)::int AS n FROM config_items WHERE scraper_id = $1 AND deleted_at IS NULL', [id]);
    expect(live.rows[0].n).toBe(1);
  });

  it('is refused to viewers (403), unknown ids are 404, and config.disable closes it', async () => {
    const id = await makeScraper();
    next = async () => result({});
    expect((await runNow(id, viewer)).statusCode).toBe(403);
    expect((await runNow('01890000-0000-7000-8000-000000000000')).statusCode).toBe(404);
    expect((await runNow('not-an-id')).statusCode).toBe(400);
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('config.disable', 'true')`);
    try {
      const off = await runNow(id);
      expect(off.statusCode).toBe(403);
      expect(off.json().message).toContain('config is disabled');
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'config.disable'`);
    }
    expect((await runNow(id)).statusCode).toBe(200);
  });

  it('never runs one scraper twice at once: a second Run Now waits for the first', async () => {
    const id = await makeScraper();
    let active = 0;
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    next = async () => {
      active++;
      most = Math.max(most, active);
      await gate;
      active--;
      return result({ items: [item('a')] });
    };
    const first = runNow(id);
    const second = runNow(id);
    await until(async () => active > 0 || undefined, 'the first run started');
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(most).toBe(1);
    expect(a.json().job_history_id).not.toBe(b.json().job_history_id);
  });
});

describe('scheduler', () => {
  it('reads the schedule as the reference does: @every 60m by default, never faster than 30 s, @never manual', () => {
    expect(scraperSchedule({})).toMatchObject({ kind: 'every', everyMs: 3_600_000 });
    expect(scraperSchedule({ schedule: '@every 5s' })).toMatchObject({ kind: 'every', everyMs: 30_000 });
    expect(scraperSchedule({ schedule: '*/10 * * * * *' })).toMatchObject({ kind: 'every', everyMs: 30_000 });
    expect(scraperSchedule({ schedule: '@never' }).kind).toBe('never');
    expect(() => scraperSchedule({ schedule: 'every day' })).toThrow(/invalid schedule/);
  });

  it('runs a new scraper at once and again when its spec changes; a @never one only by Run Now', async () => {
    // the app's own scheduler (this process leads): it finds rows written anywhere by polling config_scrapers
    const scheduled = await makeScraper({ schedule: '@every 1h', enginetest: [{ v: 1 }] });
    const manual = await makeScraper({ schedule: '@never', enginetest: [{}] });
    next = async () => result({ items: [item('x')] });
    const runs = async (id: string) => (await t.db.query(
      `SELECT count(*)::int AS n FROM job_history WHERE resource_id = $1 AND status <> 'RUNNING'`, [id])).rows[0].n as number;
    await until(async () => (await runs(scheduled)) === 1 || undefined, 'the first run');
    await t.db.query(`UPDATE config_scrapers SET spec = $2 WHERE id = $1`, [scheduled, { schedule: '@every 1h', enginetest: [{ v: 2 }] }]);
    await until(async () => (await runs(scheduled)) === 2 || undefined, 'a run after the change');
    expect(await runs(manual)).toBe(0);
  });

  it('runs at most its concurrency of scrapers at once and says which are running (the scheduler skips those when due)', async () => {
    const log = { info() {}, warn() {}, debug() {}, error() {} };
    const runner = new ScrapeRunner({ db: t.db, log }, 2);
    let active = 0;
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    next = async () => {
      active++;
      most = Math.max(most, active);
      await gate;
      active--;
      return result({});
    };
    const ids = await Promise.all([1, 2, 3].map(() => makeScraper()));
    const all = ids.map((id) => runner.run({ id, name: null, namespace: 'default', spec: { enginetest: [{}] } }));
    await until(async () => active === 2 || undefined, 'two runs');
    expect(runner.isRunning(ids[0])).toBe(true);
    release();
    await Promise.all(all);
    expect(most).toBe(2);
    expect(runner.isRunning(ids[0])).toBe(false);
  });
});

describe('retention', () => {
  it('deletes changes by age and beyond a count per item, and items by created, updated and deleted age', async () => {
    const s = await makeScraper();
    await saveResult(t.db, s, result({ items: [item('a'), item('b'), item('old')] }));
    const idOf = async (ext: string) => (await t.db.query('SELECT id FROM config_items WHERE scraper_id = $1 AND $2 = ANY(external_id)', [s, ext])).rows[0].id as string;
    const a = await idOf('a');
    for (let i = 0; i < 5; i++) {
      await t.db.query(`INSERT INTO config_changes (config_id, change_type, created_at) VALUES ($1, 'Pulled', now() - make_interval(hours => $2))`, [a, i]);
    }
    await t.db.query(`INSERT INTO config_changes (config_id, change_type, created_at) VALUES ($1, 'Scaled', now() - interval '10 days')`, [a]);
    await t.db.query(`INSERT INTO config_changes (config_id, change_type, created_at) VALUES ($1, 'Scaled', now() - interval '1 day')`, [a]);
    await t.db.query(`UPDATE config_items SET created_at = now() - interval '40 days' WHERE id = $1`, [await idOf('old')]);
    await t.db.query(`UPDATE config_items SET deleted_at = now() - interval '8 days' WHERE id = $1`, [await idOf('b')]);

    const out = await applyRetention(t.db, s, {
      changes: [{ name: 'Pulled', count: 2 }, { name: 'Scaled', age: '7d' }],
      types: [{ name: 'Test::Thing', createdAge: '30d', deletedAge: '7d' }],
    });
    expect(out).toEqual({ changes: 4, deleted: 1, purged: 1 });
    const { rows } = await t.db.query(
      `SELECT change_type, count(*)::int AS n FROM config_changes WHERE config_id = $1 GROUP BY 1 ORDER BY 1`, [a]);
    expect(rows).toEqual([{ change_type: 'Pulled', n: 2 }, { change_type: 'Scaled', n: 1 }]);
    const items = await t.db.query(`SELECT name, deleted_at IS NOT NULL AS deleted, delete_reason FROM config_items WHERE scraper_id = $1 ORDER BY name`, [s]);
    expect(items.rows).toEqual([
      { name: 'a', deleted: false, delete_reason: null },
      { name: 'old', deleted: true, delete_reason: 'retention' },
    ]);
  });
});

describe('live updates', () => {
  it('announces each table a save wrote once, however many rows', async () => {
    const s = await makeScraper();
    const events: LiveMessage[] = [];
    const off = t.app.events.bus.subscribe((e) => events.push(e));
    try {
      const ref = (ext: string) => ({ type: 'Test::Thing', externalId: ext });
      await saveResult(t.db, s, result({
        items: Array.from({ length: 30 }, (_, i) => item(`n${i}`)),
        changes: [{ item: ref('n1'), changeType: 'Created' }, { item: ref('n2'), changeType: 'Created' }],
        relationships: [{ from: ref('n1'), to: ref('n2'), relation: 'soft' }, { from: ref('n1'), to: ref('n3'), relation: 'soft' }],
      }));
      // a marker published after the save arrives after its events (notifications come in commit order)
      await t.app.events.publish({ relation: 'marker' });
      await until(async () => events.some((e) => e.type === 'change' && e.relation === 'marker') || undefined, 'the marker');
      const counts: Record<string, number> = {};
      for (const e of events) if (e.type === 'change') counts[e.relation] = (counts[e.relation] ?? 0) + 1;
      expect(counts).toMatchObject({ config_items: 1, config_changes: 1, config_relationships: 1 });
      expect(counts.config_analysis).toBeUndefined();
    } finally {
      off();
    }
  });
});

describe('config feature flag', () => {
  it('config.disable pauses scheduled runs: a due scraper waits, and runs once config is enabled again', async () => {
    const log = { info() {}, warn() {}, debug() {}, error() {} };
    // a scheduler of its own, ticking fast, reading the flag as the app's does (configFeatureOn); the app's own
    // scheduler reads the same property, so it does not run the scraper either
    let reads = 0;
    const scheduler = new CatalogScheduler(t.db, new ScrapeRunner({ db: t.db, log }), {
      log, tickMs: 20, reloadMs: 60_000, enabled: async () => (reads++, configFeatureOn(t.db)),
    });
    const jobs = async (id: string) => (await t.db.query(
      `SELECT count(*)::int AS n FROM job_history WHERE resource_id = $1`, [id])).rows[0].n as number;
    next = async () => result({ items: [item('paused')] });
    await t.db.query(`INSERT INTO properties (name, value) VALUES ('config.disable', 'true')`);
    let id: string;
    try {
      id = await makeScraper({ schedule: '@every 1h', enginetest: [{ paused: true }] });
      await scheduler.start(); // loads the new scraper: due at once
      await until(async () => reads >= 5 || undefined, 'five ticks with the scraper due');
      expect(await jobs(id)).toBe(0);
      expect(scheduler.nextRunOf(id)).not.toBeNull(); // still due, not skipped to its next occurrence
      expect(scheduler.nextRunOf(id)!).toBeLessThanOrEqual(Date.now());
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'config.disable'`);
    }
    try {
      await until(async () => (await jobs(id)) >= 1 || undefined, 'a run once config is enabled');
      // then on its hourly schedule: its next occurrence is in the future, at a stable phase of the hour (spread by id)
      const next = scheduler.nextRunOf(id)!;
      expect(next).toBeGreaterThan(Date.now());
      expect(next).toBeLessThanOrEqual(Date.now() + 60 * 60_000);
    } finally {
      await scheduler.stop();
    }
  });
});

describe('replicas', () => {
  it('runs one scraper once at a time across two replicas: a Run Now on the second waits for the first (advisory lock)', async () => {
    // the scrapers of earlier tests go first: a scheduled one run by either replica's scheduler would enter the gated
    // extractor below and hold it (two active, or a third run at the lock)
    await t.db.query('UPDATE config_scrapers SET deleted_at = now() WHERE deleted_at IS NULL');
    // a second replica: its own pool, the same database
    const second = await buildApp(t.config, { logger: false });
    await second.ready();
    // released in finally too: a failed wait must not leave runs parked in the gate (the apps could not close)
    let release: () => void = () => {};
    try {
      const id = await makeScraper();
      let active = 0;
      let most = 0;
      const gate = new Promise<void>((r) => (release = r));
      next = async () => {
        active++;
        most = Math.max(most, active);
        await gate;
        active--;
        return result({ items: [item('r')] });
      };
      const a = runNow(id);
      const b = second.inject({ method: 'POST', url: `/api/config/run/${id}`, headers: admin });
      // both runs have reached the lock (one holds it, the other tries it again and again), and one is extracting
      const atLock = async () => (await t.db.query(
        `SELECT count(DISTINCT pid)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND query LIKE 'SELECT pg_try_advisory_lock%'`)).rows[0].n as number;
      await until(async () => (active === 1 && (await atLock()) === 2) || undefined, 'both runs at the lock, one running');
      release();
      const [ra, rb] = await Promise.all([a, b]);
      expect([ra.statusCode, rb.statusCode]).toEqual([200, 200]);
      expect(most).toBe(1);
      const { rows } = await t.db.query<{ time_start: Date; time_end: Date }>(
        `SELECT time_start, time_end FROM job_history WHERE resource_id = $1 ORDER BY time_start`, [id]);
      expect(rows).toHaveLength(2);
      expect(rows[0].time_end.getTime()).toBeLessThanOrEqual(rows[1].time_start.getTime());
    } finally {
      release();
      next = async () => emptyResult();
      await second.close();
    }
  });
});
