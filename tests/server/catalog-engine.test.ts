import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveResult } from '../../server/modules/catalog/engine/save.js';
import { emptyResult, type ScrapedItem, type ScrapeResult } from '../../server/modules/catalog/types.js';
import { createTestApp, type TestContext } from './helpers.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function makeScraper(spec: Record<string, unknown> = { schedule: '@never' }, name = `s-${Math.random().toString(36).slice(2, 8)}`): Promise<string> {
  const { rows } = await t.db.query<{ id: string }>(
    `INSERT INTO config_scrapers (name, namespace, spec, source) VALUES ($1, 'default', $2, 'UI') RETURNING id`, [name, spec]);
  return rows[0].id;
}

const item = (ext: string, config: unknown, more: Partial<ScrapedItem> = {}): ScrapedItem => ({
  externalId: ext, name: ext, type: 'Test::Thing', configClass: 'Thing', config, ...more,
});
const result = (more: Partial<ScrapeResult>): ScrapeResult => ({ ...emptyResult(), ...more });

async function itemRow(scraperId: string, ext: string) {
  const { rows } = await t.db.query(
    `SELECT ci.*, l.last_scraped_time FROM config_items ci LEFT JOIN config_items_last_scraped_time l ON l.config_id = ci.id
     WHERE ci.scraper_id = $1 AND $2 = ANY(ci.external_id)`, [scraperId, ext]);
  return rows[0];
}

describe('saveResult: items and change detection', () => {
  it('counts added, updated and unchanged items; a changed config is one diff change; unchanged rows are not rewritten', async () => {
    const s = await makeScraper();
    // b's 1e21 prints differently in PostgreSQL: the fingerprint (md5 of the compared columns) misses, the exact comparison still finds it unchanged
    const first = await saveResult(t.db, s, result({ items: [item('a', { spec: { replicas: 1 }, b: 1 }), item('b', { x: 1, big: 1e21 })] }));
    expect(first.config_types['Test::Thing']).toEqual({ added: 2, updated: 0, unchanged: 0, changes: 0 });
    const a1 = await itemRow(s, 'a');
    const b1 = await itemRow(s, 'b');

    // keys in another order are the same config; a new value in `a` is a change
    const second = await saveResult(t.db, s, result({
      items: [item('a', { b: 1, spec: { replicas: 3, paused: true } }), item('b', { big: 1e21, x: 1 })],
    }), { now: new Date(Date.now() + 60_000) });
    expect(second.config_types['Test::Thing']).toEqual({ added: 0, updated: 1, unchanged: 1, changes: 1 });

    const b2 = await itemRow(s, 'b');
    expect(b2.updated_at.toISOString()).toBe(b1.updated_at.toISOString());
    expect(b2.last_scraped_time.getTime()).toBeGreaterThan(b1.last_scraped_time.getTime());
    const a2 = await itemRow(s, 'a');
    expect(a2.updated_at.getTime()).toBeGreaterThan(a1.updated_at.getTime());
    expect(a2.config).toEqual({ b: 1, spec: { replicas: 3, paused: true } });

    const { rows: changes } = await t.db.query('SELECT * FROM config_changes WHERE config_id = $1', [a1.id]);
    expect(changes).toHaveLength(1);
    expect(changes[0].change_type).toBe('diff');
    // the reference's patch turns the new config back into the previous one
    expect(changes[0].patches).toEqual({ spec: { replicas: 1, paused: null } });
    expect(changes[0].summary).toBe('spec.paused, spec.replicas');
    expect(changes[0].diff).toContain('-    "replicas": 1');
    expect(changes[0].diff).toContain('+    "replicas": 3');
    expect(changes[0].diff).toMatch(/^@@ /m);

    // a third identical scrape writes nothing
    const third = await saveResult(t.db, s, result({ items: [item('a', { b: 1, spec: { paused: true, replicas: 3 } }), item('b', { x: 1, big: 1e21 })] }));
    expect(third.config_types['Test::Thing']).toEqual({ added: 0, updated: 0, unchanged: 2, changes: 0 });
    expect((await itemRow(s, 'a')).updated_at.toISOString()).toBe(a2.updated_at.toISOString());
  });

  it('finds an item again by any of its external ids, within its type', async () => {
    const s = await makeScraper();
    await saveResult(t.db, s, result({ items: [item('uid-1', { v: 1 }, { aliases: ['ns/name'] })] }));
    const again = await saveResult(t.db, s, result({ items: [item('ns/name', { v: 1 }), item('uid-1', { v: 1 }, { type: 'Other' })] }));
    expect(again.config_types['Test::Thing']).toMatchObject({ added: 0 });
    expect(again.config_types.Other).toMatchObject({ added: 1 });
  });

  it('resolves parents to parent_id, a hard relationship from parent to child and the path of ancestors', async () => {
    const s = await makeScraper();
    const ref = (ext: string) => ({ type: 'Test::Thing', externalId: ext });
    // children before their parents in the result: the engine orders the inserts
    await saveResult(t.db, s, result({
      items: [item('pod', {}, { parent: ref('rs') }), item('rs', {}, { parent: ref('ns') }), item('ns', {}, { parent: ref('cluster') }), item('cluster', {})],
    }));
    const [cluster, ns, rs, pod] = await Promise.all(['cluster', 'ns', 'rs', 'pod'].map((e) => itemRow(s, e)));
    expect(pod.parent_id).toBe(rs.id);
    expect(pod.path).toBe(`${cluster.id}.${ns.id}.${rs.id}`);
    expect(ns.path).toBe(cluster.id);
    expect(cluster.path).toBeNull();
    const { rows } = await t.db.query(`SELECT relation FROM config_relationships WHERE config_id = $1 AND related_id = $2 AND deleted_at IS NULL`, [rs.id, pod.id]);
    expect(rows).toEqual([{ relation: 'hard' }]);

    // a partial result (one object, as the live watcher sends) finds its parent among the stored items
    await saveResult(t.db, s, result({ complete: false, items: [item('pod2', {}, { parent: ref('rs') })] }));
    expect((await itemRow(s, 'pod2')).path).toBe(`${cluster.id}.${ns.id}.${rs.id}`);
  });
});

describe('saveResult: changes the source reports', () => {
  it('raises the count of a repeated external change, deletes on a delete mapping and drops an ignored one', async () => {
    const s = await makeScraper();
    const ref = { type: 'Test::Thing', externalId: 'a' };
    const ev = { item: ref, externalChangeId: 'event-uid-1', changeType: 'BackOff', severity: 'medium', summary: 'Back-off restarting' };
    await saveResult(t.db, s, result({ items: [item('a', {})], changes: [ev] }));
    const summary = await saveResult(t.db, s, result({ items: [item('a', {})], changes: [ev, { item: ref, changeType: 'Noise', action: 'ignore' }] }));
    expect(summary.config_types['Test::Thing'].changes).toBe(1);
    const a = await itemRow(s, 'a');
    const { rows } = await t.db.query('SELECT change_type, count FROM config_changes WHERE config_id = $1 ORDER BY change_type', [a.id]);
    expect(rows).toEqual([{ change_type: 'BackOff', count: 2 }]);

    await saveResult(t.db, s, result({ complete: false, changes: [{ item: ref, changeType: 'Deleted', action: 'delete' }] }));
    const deleted = await itemRow(s, 'a');
    expect(deleted.deleted_at).not.toBeNull();
    expect(deleted.delete_reason).toBe('Deleted');
  });
});

describe('saveResult: insights', () => {
  it('upserts one insight per item and analyzer, and resolves open ones of analysed types not reported again', async () => {
    const s = await makeScraper();
    const ref = (ext: string) => ({ type: 'Test::Thing', externalId: ext });
    const insight = (ext: string, analyzer: string) => ({ item: ref(ext), analyzer, analysisType: 'reliability', severity: 'high', summary: analyzer });
    await saveResult(t.db, s, result({
      items: [item('a', {}), item('b', {})], analyzedTypes: ['Test::Thing'],
      analysis: [insight('a', 'CrashLoopBackOff'), insight('b', 'latest tag')],
    }));
    await saveResult(t.db, s, result({ items: [item('a', {}), item('b', {})], analyzedTypes: ['Test::Thing'], analysis: [insight('a', 'CrashLoopBackOff')] }));
    const { rows } = await t.db.query(
      `SELECT ca.analyzer, ca.status, ca.last_observed > ca.first_observed AS touched FROM config_analysis ca
       JOIN config_items ci ON ci.id = ca.config_id WHERE ci.scraper_id = $1 ORDER BY analyzer`, [s]);
    expect(rows).toEqual([
      { analyzer: 'CrashLoopBackOff', status: 'open', touched: true },
      { analyzer: 'latest tag', status: 'resolved', touched: false },
    ]);
  });
});

describe('saveResult: deletion', () => {
  it('deletes missing items at once after a complete run that says so, never after a failed or partial one', async () => {
    const s = await makeScraper();
    await saveResult(t.db, s, result({ items: [item('keep', {}), item('gone', {})] }));
    // partial, or with errors: nothing is deleted
    await saveResult(t.db, s, result({ items: [item('keep', {})], complete: false, deleteMissing: true }));
    await saveResult(t.db, s, result({ items: [item('keep', {})], errors: ['items[1]: bad'], deleteMissing: true }));
    expect((await itemRow(s, 'gone')).deleted_at).toBeNull();
    const done = await saveResult(t.db, s, result({ items: [item('keep', {})], deleteMissing: true }));
    expect(done.config_types['Test::Thing'].deleted).toBe(1);
    const gone = await itemRow(s, 'gone');
    expect(gone.deleted_at).not.toBeNull();
    expect(gone.delete_reason).toBe('not found');
    expect((await itemRow(s, 'keep')).deleted_at).toBeNull();
  });

  it('keeps items the live watcher saved while a run was listing its source', async () => {
    const s = await makeScraper();
    const startedAt = new Date();
    await new Promise((r) => setTimeout(r, 5));
    await saveResult(t.db, s, result({ complete: false, items: [item('watched', {})] }));
    await saveResult(t.db, s, result({ items: [item('listed', {})], deleteMissing: true }), { startedAt });
    expect((await itemRow(s, 'watched')).deleted_at).toBeNull();

  });

  it('deletes items not returned once they have not been scraped for staleItemAge', async () => {
    const s = await makeScraper();
    const t0 = Date.now();
    await saveResult(t.db, s, result({ items: [item('keep', {}), item('old', {})] }), { now: new Date(t0) });
    await saveResult(t.db, s, result({ items: [item('keep', {})] }), { now: new Date(t0 + 30 * 60_000), staleItemAgeMs: 3_600_000 });
    expect((await itemRow(s, 'old')).deleted_at).toBeNull();
    await saveResult(t.db, s, result({ items: [item('keep', {})] }), { now: new Date(t0 + 61 * 60_000), staleItemAgeMs: 3_600_000 });
    const old = await itemRow(s, 'old');
    expect(old.deleted_at).not.toBeNull();
    expect(old.delete_reason).toBe('stale');
    // an observed deletion (a source's deletionTimestamp) deletes at once; seen again, the item is live again
    await saveResult(t.db, s, result({ complete: false, items: [item('keep', {}, { deletedAt: new Date(t0) })] }));
    expect((await itemRow(s, 'keep')).deleted_at).not.toBeNull();
    await saveResult(t.db, s, result({ complete: false, items: [item('keep', {})] }));
    expect((await itemRow(s, 'keep')).deleted_at).toBeNull();
  });

  it('marks relationships of the scraper no longer reported deleted after a complete run', async () => {
    const s = await makeScraper();
    const ref = (ext: string) => ({ type: 'Test::Thing', externalId: ext });
    const items = [item('svc', {}), item('p1', {}), item('p2', {})];
    await saveResult(t.db, s, result({ items, relationships: [{ from: ref('svc'), to: ref('p1'), relation: 'soft' }, { from: ref('svc'), to: ref('p2'), relation: 'soft' }] }));
    await saveResult(t.db, s, result({ items, complete: false, relationships: [{ from: ref('svc'), to: ref('p1'), relation: 'soft' }] }));
    const live = async () => (await t.db.query(
      `SELECT r.name FROM config_relationships cr JOIN config_items r ON r.id = cr.related_id
       WHERE cr.scraper_id = $1 AND cr.deleted_at IS NULL ORDER BY 1`, [s])).rows.map((r) => r.name);
    expect(await live()).toEqual(['p1', 'p2']);
    await saveResult(t.db, s, result({ items, relationships: [{ from: ref('svc'), to: ref('p1'), relation: 'soft' }] }));
    expect(await live()).toEqual(['p1']);
  });
});
