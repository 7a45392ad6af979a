import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { DemoSet } from '../../lib/demo.js';
import { runScraper } from '../catalog/engine/run.js';
import { saveResult } from '../catalog/engine/save.js';
import { extractKubernetes } from '../catalog/kubernetes/extract.js';
import { fileScraper } from '../catalog/scrapers/file.js';
import { emptyResult, type ScrapedItem, type ScrapeResult } from '../catalog/types.js';
import type { KubeObject } from '../kubernetes/objects.js';
import { CLUSTER_EPISODES, FILE_EPISODES, shiftTimes, statesOfWeek } from './catalog-history.js';
import { DEMO_SETTINGS } from './settings.js';

/**
 * The catalog's offline demo: a `file` scraper over config files in this repository, and a recorded cluster (about
 * seventy objects and Events of a small shop) played through the kubernetes extractor under the settings demo's
 * kubernetes scraper. Both replay a week (catalog-history.ts) through the real extractors and the engine's save, so
 * the items have diffs, Events, insights opened and resolved, and relationships, as a scraped catalog would.
 */

const FIXTURES = fileURLToPath(new URL('./fixtures/catalog/', import.meta.url));
const DEMO_LABELS = { env: 'demo' };
const QUIET = { info() {}, warn() {}, debug() {}, error() {} };

interface Recording {
  recordedAt: string;
  cluster: { name: string; version: string };
  objects: KubeObject[];
  events: KubeObject[];
  /** Objects seen earlier in the week and gone when the cluster was recorded (CLUSTER_EPISODES says when). */
  earlier: KubeObject[];
}

/**
 * The file scraper's spec: the fixtures' paths relative to the working directory, as the file scraper reads them
 * (the image runs from /app with the server's sources, fixtures included).
 */
export function demoFileScraper(cwd = process.cwd()) {
  const dir = relative(cwd, FIXTURES).replaceAll('\\', '/').replace(/\/$/, '');
  return {
    name: 'service-configs', namespace: 'default', description: 'Service, database and feature flag settings kept in the repository',
    spec: {
      schedule: '@every 1h',
      file: [
        { type: 'Config::Service', class: 'Service', id: '$.id', name: '$.name', labels: { team: '$.team', tier: '$.tier' }, paths: [`${dir}/services/*.yaml`] },
        { type: 'Config::Database', class: 'Database', items: '$.databases[*]', id: '$.id', name: '$.name', labels: { team: '$.team', engine: '$.engine' }, paths: [`${dir}/databases.json`] },
        { type: 'Config::FeatureFlags', class: 'FeatureFlags', id: 'feature-flags/production', name: 'feature-flags', paths: [`${dir}/feature-flags.json`] },
      ],
    },
  };
}

/** The recorded cluster, its times moved so that it was recorded `now`. */
export function demoCluster(now = new Date()): Recording {
  const rec = JSON.parse(readFileSync(`${FIXTURES}cluster.json`, 'utf8')) as Recording;
  return shiftTimes(rec, now.getTime() - Date.parse(rec.recordedAt));
}

/**
 * The engine writes through a pg.Pool in its own transactions; a demo set loads in one transaction on one client.
 * This door gives the engine that client, its transactions becoming savepoints: the set still loads whole or not at all.
 */
function poolOver(client: pg.PoolClient): pg.Pool {
  let seq = 0;
  const run = (...args: unknown[]) => (client.query as (...a: unknown[]) => Promise<unknown>).apply(client, args);
  const connect = async () => {
    const savepoint = `demo_catalog_${++seq}`;
    const query = (text: unknown, ...rest: unknown[]) => {
      const verb = typeof text === 'string' ? text.trim().toUpperCase() : '';
      if (verb === 'BEGIN') return client.query(`SAVEPOINT ${savepoint}`);
      if (verb === 'COMMIT') return client.query(`RELEASE SAVEPOINT ${savepoint}`);
      if (verb === 'ROLLBACK') return client.query(`ROLLBACK TO SAVEPOINT ${savepoint}`);
      return run(text, ...rest);
    };
    return { query, release() {} };
  };
  return { query: run, connect } as unknown as pg.Pool;
}

async function scraperId(client: pg.PoolClient, name: string, namespace: string): Promise<string | undefined> {
  const { rows } = await client.query<{ id: string }>(
    'SELECT id FROM config_scrapers WHERE name = $1 AND namespace = $2 AND deleted_at IS NULL', [name, namespace]);
  return rows[0]?.id;
}

async function insertScraper(client: pg.PoolClient, row: { name: string; namespace: string; description: string; spec: unknown }, createdBy: string | null): Promise<string> {
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO config_scrapers (name, namespace, description, spec, labels, source, created_by)
     VALUES ($1, $2, $3, $4, $5, 'UI', $6) RETURNING id`,
    [row.name, row.namespace, row.description, JSON.stringify(row.spec), JSON.stringify(DEMO_LABELS), createdBy]);
  return rows[0].id;
}

const hasItems = async (client: pg.PoolClient, id: string) => !!(await client.query('SELECT 1 FROM config_items WHERE scraper_id = $1 LIMIT 1', [id])).rowCount;

/** One finished scraper run in Job History, at the time of the state it saved. */
async function recordRun(client: pg.PoolClient, id: string, at: Date, summary: unknown, items: number): Promise<void> {
  await client.query(
    `INSERT INTO job_history (name, resource_type, resource_id, status, success_count, error_count, duration_millis, details,
       hostname, time_start, time_end, created_at)
     VALUES ('Scraper', 'config_scraper', $1, 'SUCCESS', $2, 0, 1450, $3, 'demo', $4, $4::timestamptz + interval '1450 milliseconds', $4)`,
    [id, items, JSON.stringify({ errors: [], scrape_summary: summary }), at.toISOString()]);
}

const keyOfObject = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** The recorded cluster's week, saved state by state; its Events with the last state (their own times are kept). */
async function replayCluster(client: pg.PoolClient, db: pg.Pool, id: string, block: Record<string, unknown>, now: Date): Promise<void> {
  const rec = demoCluster(now);
  const states = statesOfWeek([...rec.objects, ...rec.earlier], CLUSTER_EPISODES, keyOfObject, now.getTime());
  for (const [i, state] of states.entries()) {
    const last = i === states.length - 1;
    const result = extractKubernetes(state.items, last ? rec.events : [], block, { clusterName: rec.cluster.name, cluster: { version: rec.cluster.version } });
    // each state is a whole cluster: what it lacks is gone now, not after a day without scrapes (staleItemAge)
    const summary = await saveResult(db, id, result, { now: state.at, staleItemAgeMs: 0 });
    // the settings demo's failed run (no cluster to scrape) stays the latest: these are replays of the recording
    await recordRun(client, id, last ? new Date(now.getTime() - 10 * 60_000) : state.at, summary, result.items.length);
  }
}

/** The config files' week: their items now, with earlier values, saved oldest first; then a real run of the scraper. */
async function replayFiles(db: pg.Pool, row: { id: string; name: string; namespace: string; spec: ReturnType<typeof demoFileScraper>['spec'] }, now: Date): Promise<void> {
  const ctx = { db, scraperId: row.id, namespace: row.namespace, signal: new AbortController().signal, log: QUIET };
  const current: ScrapedItem[] = [];
  for (const block of row.spec.file) current.push(...(await fileScraper.scrape(ctx, block)).items);
  const states = statesOfWeek(current, FILE_EPISODES, (item) => item.externalId, now.getTime());
  for (const state of states.slice(0, -1)) {
    const result: ScrapeResult = { ...emptyResult(), items: state.items, analysis: noBackups(state.items) };
    await saveResult(db, row.id, result, { now: state.at });
  }
  await runScraper({ db, log: QUIET }, { id: row.id, name: row.name, namespace: row.namespace, spec: row.spec });
}

/** The demo's one insight on a config file: a database without backups (the files have no analyzer of their own). */
function noBackups(items: ScrapedItem[]): ScrapeResult['analysis'] {
  return items.filter((i) => i.type === 'Config::Database' && (i.config as { backup?: unknown }).backup === null).map((i) => ({
    item: { type: i.type, externalId: i.externalId }, analyzer: 'No backup configured', analysisType: 'reliability', severity: 'high',
    summary: `${i.name} has no backup schedule`, message: `The ${i.name} database sets backup: null; a lost node loses its data.`, source: 'Demo',
  }));
}

/**
 * The catalog demo set (after `settings`, whose kubernetes scraper plays the recorded cluster). Idempotent: a scraper
 * that already has items is not replayed again.
 */
export const catalogDemo: DemoSet = {
  name: 'catalog',
  async load(client) {
    const now = new Date();
    const db = poolOver(client);
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM people WHERE email = 'alice.nguyen@example.com' AND deleted_at IS NULL`);
    const createdBy = rows[0]?.id ?? null;

    const cluster = DEMO_SETTINGS.scraper;
    const clusterId = (await scraperId(client, cluster.name, cluster.namespace)) ?? (await insertScraper(client, cluster, createdBy));
    if (!(await hasItems(client, clusterId))) await replayCluster(client, db, clusterId, cluster.spec.kubernetes[0], now);

    const files = demoFileScraper();
    const filesId = (await scraperId(client, files.name, files.namespace)) ?? (await insertScraper(client, files, createdBy));
    if (!(await hasItems(client, filesId))) await replayFiles(db, { id: filesId, ...files }, now);
  },
};
