import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSets } from '../../server/lib/demo.js';
import { inTransaction } from '../../server/lib/tx.js';
import { catalogDemo } from '../../server/modules/demo/catalog.js';
import { DEMO_SETS } from '../../server/modules/demo/index.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * The offline catalog demo: a file scraper over the repo's config files and a recorded cluster played through the
 * kubernetes extractor, each replaying a week through the engine, so the catalog, Changes and Insights have content.
 */
let t: TestContext;
let admin: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  expect(await loadDemoSets(t.db, DEMO_SETS)).toContain('catalog');
  admin = await sessionHeaders(t.db, (await makePerson(t.db, { roles: ['viewer'] })).id);
});
afterAll(async () => {
  await t?.close();
});

const rows = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => (await t.db.query(sql, params)).rows as T[];
const itemId = async (type: string, name: string) =>
  (await rows<{ id: string }>('SELECT id FROM config_items WHERE type = $1 AND name = $2 AND deleted_at IS NULL', [type, name]))[0]?.id;

describe('catalog demo set', () => {
  it('adds items of several types from both scrapers, with health as judged', async () => {
    const types = await rows<{ type: string; n: number }>(
      `SELECT type, count(*)::int AS n FROM config_items WHERE deleted_at IS NULL GROUP BY type ORDER BY type`);
    const byType = Object.fromEntries(types.map((r) => [r.type, r.n]));
    expect(byType).toMatchObject({
      'Config::Database': 3, 'Config::FeatureFlags': 1, 'Config::Service': 4, 'Kubernetes::Cluster': 1, 'Kubernetes::Namespace': 5,
      'Kubernetes::Node': 3, 'Kubernetes::Deployment': 6, 'Kubernetes::Ingress': 1,
    });
    expect(byType['Kubernetes::Pod']).toBeGreaterThanOrEqual(15);
    // read as the reference UI reads the list, by any role
    const res = await t.app.inject({ method: 'GET', url: '/api/db/config_items?select=name,health,status&type=eq.Kubernetes::Pod&name=like.recommendations*', headers: admin });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([expect.objectContaining({ health: 'unhealthy', status: 'CrashLoopBackOff' })]);
    expect(await rows('SELECT health, status FROM config_items WHERE type = $1 AND name = $2', ['Kubernetes::Node', 'node-c']))
      .toEqual([{ health: 'warning', status: 'Memory Pressure' }]);
  });

  it('has a week of changes: diffs on several days, from the cluster and the files, and Events with their counts', async () => {
    const days = await rows<{ d: string }>(`SELECT DISTINCT date_trunc('day', created_at)::text AS d FROM config_changes WHERE change_type = 'diff'`);
    expect(days.length).toBeGreaterThanOrEqual(4);
    const oldest = await rows<{ age: number }>(`SELECT extract(epoch FROM now() - min(created_at)) / 86400 AS age FROM config_changes`);
    expect(Number(oldest[0].age)).toBeGreaterThan(5);
    const flags = await itemId('Config::FeatureFlags', 'feature-flags');
    const flagDiffs = await rows<{ summary: string }>(`SELECT summary FROM config_changes WHERE config_id = $1 AND change_type = 'diff' ORDER BY created_at`, [flags]);
    expect(flagDiffs.length).toBe(2);
    expect(flagDiffs[0].summary).toContain('rollout');
    const checkout = await itemId('Kubernetes::Deployment', 'checkout');
    const image = await rows<{ diff: string }>(`SELECT diff FROM config_changes WHERE config_id = $1 AND change_type = 'diff'`, [checkout]);
    expect(image.map((r) => r.diff).join('\n')).toContain('ghcr.io/acme/checkout:1.9.0');
    const backoff = await rows<{ count: number; severity: string | null }>(
      `SELECT count, severity FROM config_changes WHERE change_type = 'BackOff'`);
    expect(backoff).toEqual([expect.objectContaining({ count: 42 })]);
    expect((await rows(`SELECT DISTINCT change_type FROM config_changes`)).length).toBeGreaterThanOrEqual(8);
  });

  it('has insights of several severities, open and resolved', async () => {
    const insights = await rows<{ name: string; analyzer: string; severity: string; status: string }>(
      `SELECT ci.name, ca.analyzer, ca.severity, ca.status FROM config_analysis ca JOIN config_items ci ON ci.id = ca.config_id`);
    const has = (name: RegExp, analyzer: string, status: string) => insights.some((i) => name.test(i.name) && i.analyzer === analyzer && i.status === status);
    expect(has(/^recommendations-/, 'CrashLoopBackOff', 'open')).toBe(true);
    expect(has(/^recommendations$/, 'Image tag ":latest" used', 'open')).toBe(true);
    expect(has(/^prometheus$/, 'CPU not limited', 'open')).toBe(true);
    expect(has(/^frontend$/, 'Runs as root user', 'open')).toBe(true);
    expect(has(/^redis-sessions$/, 'No backup configured', 'open')).toBe(true);
    // the catalog-api pod crash-looped until four days ago
    expect(has(/^catalog-api-/, 'CrashLoopBackOff', 'resolved')).toBe(true);
    expect(new Set(insights.map((i) => i.severity))).toEqual(new Set(['high', 'medium', 'low']));
  });

  it('relates items: parents, owners, services to pods, the ingress to its services', async () => {
    const rel = async (fromType: string, from: string, toType: string, to: string) => (await rows(
      `SELECT r.relation FROM config_relationships r JOIN config_items a ON a.id = r.config_id JOIN config_items b ON b.id = r.related_id
       WHERE a.type = $1 AND a.name = $2 AND b.type = $3 AND b.name LIKE $4 AND r.deleted_at IS NULL`, [fromType, from, toType, to])).length;
    expect(await rel('Kubernetes::Ingress', 'shop', 'Kubernetes::Service', 'frontend')).toBeGreaterThan(0);
    expect(await rel('Kubernetes::Service', 'checkout', 'Kubernetes::Pod', 'checkout-%')).toBeGreaterThan(0);
    expect(await rel('Kubernetes::Deployment', 'checkout', 'Kubernetes::ReplicaSet', 'checkout-%')).toBeGreaterThan(0);
    const parent = await rows<{ p: string }>(`SELECT p.name AS p FROM config_items c JOIN config_items p ON p.id = c.parent_id WHERE c.type = 'Kubernetes::Namespace' AND c.name = 'shop'`);
    expect(parent).toEqual([{ p: 'demo' }]);
  });

  it('deleted what a rollout replaced: the old checkout ReplicaSet and pods, two days ago', async () => {
    const gone = await rows<{ type: string; name: string; days: number }>(
      `SELECT type, name, round(extract(epoch FROM now() - deleted_at) / 86400) AS days FROM config_items WHERE deleted_at IS NOT NULL ORDER BY type, name`);
    expect(gone.map((g) => [g.type, g.name, Number(g.days)])).toEqual([
      ['Kubernetes::Pod', 'checkout-7c9f8b6d4e-k2x9q', 2], ['Kubernetes::Pod', 'checkout-7c9f8b6d4e-p7w4m', 2],
      ['Kubernetes::ReplicaSet', 'checkout-7c9f8b6d4e', 2],
    ]);
  });

  it("shows each scraper's runs in Job History, with what each saved", async () => {
    // the leader's scheduler may be running these scrapers too (RUNNING, or a FAILED run without a cluster): read ours
    const runs = await rows<{ name: string; hostname: string; types: string[] }>(
      `SELECT s.name, jh.hostname, ARRAY(SELECT jsonb_object_keys(jh.details->'scrape_summary'->'config_types') ORDER BY 1) AS types
       FROM job_history jh JOIN config_scrapers s ON s.id::text = jh.resource_id
       WHERE jh.resource_type = 'config_scraper' AND jh.name = 'Scraper' AND jh.status = 'SUCCESS' ORDER BY jh.time_start`);
    const cluster = runs.filter((r) => r.name === 'cluster-config' && r.hostname === 'demo');
    expect(cluster.length).toBe(9); // a week ago, after each episode, and the recording
    expect(cluster[0].types).toEqual(expect.arrayContaining(['Kubernetes::Cluster', 'Kubernetes::Deployment', 'Kubernetes::Pod']));
    const files = runs.filter((r) => r.name === 'service-configs');
    expect(files.length).toBeGreaterThanOrEqual(1);
    expect(files[0].types).toEqual(['Config::Database', 'Config::FeatureFlags', 'Config::Service']);
  });

  it('is idempotent: loading it again adds nothing', async () => {
    const count = async () => (await rows<{ n: string }>(`SELECT (SELECT count(*) FROM config_items) + (SELECT count(*) FROM config_changes)
      + (SELECT count(*) FROM config_analysis) + (SELECT count(*) FROM config_relationships) + (SELECT count(*) FROM config_scrapers)
      -- the demo's replayed runs (the leader's scheduler may add runs of its own meanwhile)
      + (SELECT count(*) FROM job_history WHERE hostname = 'demo') AS n`))[0].n;
    const before = await count();
    expect(await loadDemoSets(t.db, DEMO_SETS)).toEqual([]);
    await inTransaction(t.db, (c) => catalogDemo.load(c));
    expect(await count()).toBe(before);
  });
});
