import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveResult } from '../../server/modules/catalog/engine/save.js';
import { emptyResult, type ScrapedItem, type ScrapeResult } from '../../server/modules/catalog/types.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * The engine's fingerprint of each item (config_items_scrape_hash): an unchanged item is recognised from it without
 * reading its row; a row written by anyone else since is compared in full again, so the source's value comes back.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const item = (ext: string, config: unknown, more: Partial<ScrapedItem> = {}): ScrapedItem => ({
  externalId: ext, name: ext, type: 'Test::Printed', configClass: 'Thing', config, ...more,
});
const result = (items: ScrapedItem[]): ScrapeResult => ({ ...emptyResult(), items });
const counts = async (s: string, items: ScrapedItem[]) => (await saveResult(t.db, s, result(items))).config_types['Test::Printed'];

async function scraper(): Promise<string> {
  const { rows } = await t.db.query<{ id: string }>(
    `INSERT INTO config_scrapers (name, namespace, spec, source) VALUES ($1, 'default', '{}', 'UI') RETURNING id`,
    [`fp-${Math.random().toString(36).slice(2, 8)}`]);
  return rows[0].id;
}

async function row(s: string, ext: string) {
  const { rows } = await t.db.query(
    `SELECT ci.id, ci.xmin::text AS xmin, ci.config, ci.labels, ci.deleted_at, h.hash, h.item_xmin::text AS item_xmin
     FROM config_items ci LEFT JOIN config_items_scrape_hash h ON h.config_id = ci.id
     WHERE ci.scraper_id = $1 AND $2 = ANY(ci.external_id)`, [s, ext]);
  return rows[0];
}

describe('saveResult: fingerprints', () => {
  it('fingerprints each written row at its version; keys in another order are compared in full once, then recognised', async () => {
    const s = await scraper();
    await counts(s, [item('a', { x: 1, y: { p: 1, q: 2 } })]);
    const a1 = await row(s, 'a');
    expect(a1.hash).toMatch(/^[0-9a-f]{32}$/);
    expect(a1.item_xmin).toBe(a1.xmin);

    // the same config, keys reordered: not a change; the fingerprint is taken again, the row is left as it was
    expect(await counts(s, [item('a', { y: { q: 2, p: 1 }, x: 1 })])).toMatchObject({ updated: 0, unchanged: 1, changes: 0 });
    const a2 = await row(s, 'a');
    expect(a2.xmin).toBe(a1.xmin);
    expect(a2.hash).not.toBe(a1.hash);
    expect(await counts(s, [item('a', { y: { q: 2, p: 1 }, x: 1 })])).toMatchObject({ updated: 0, unchanged: 1 });
    expect((await row(s, 'a')).hash).toBe(a2.hash);
  });

  it('compares a row written by someone else since in full: an edited config and a deletion are undone by the next scrape', async () => {
    const s = await scraper();
    const items = [item('b', { v: 1 }, { labels: { app: 'b' } }), item('c', { v: 2 })];
    await counts(s, items);
    const b1 = await row(s, 'b');
    // an edit the fingerprint does not know of: same hash, another row version
    await t.db.query(`UPDATE config_items SET config = '{"v": 99}', labels = '{"app": "x"}' WHERE id = $1`, [b1.id]);
    await t.db.query(`UPDATE config_items SET deleted_at = now(), delete_reason = 'stale' WHERE scraper_id = $1 AND 'c' = ANY(external_id)`, [s]);

    expect(await counts(s, items)).toMatchObject({ updated: 2, unchanged: 0, changes: 1 });
    const b2 = await row(s, 'b');
    expect(b2.config).toEqual({ v: 1 });
    expect(b2.labels).toEqual({ app: 'b' });
    expect(b2.item_xmin).toBe(b2.xmin);
    expect((await row(s, 'c')).deleted_at).toBeNull();
    expect(await counts(s, items)).toMatchObject({ updated: 0, unchanged: 2 });
  });
});
