import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigSummaryRow } from '../../server/contracts/catalog-api.js';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';

// The item rollups behind POST /api/catalog/summary (0052): config_item_rollup and config_item_rollup_latest must
// equal a recount from config_items after every kind of write the catalog makes, and the summary answered from them
// must equal the exact answer.

let t: TestContext;
let admin: Record<string, string>;

const ID = (n: number) => `0000000d-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** The rollups as they are, and as a recount from the items says they should be (empty groups left out). */
async function rollupVsRecount() {
  const dims = `FROM config_items ci, config_item_dims(ci.type, ci.config_class, ci.tags) g`;
  const kept = await t.db.query(`SELECT dim, value, live, health, n::int, cost_per_minute::float8 AS cpm, cost_per_minute_n::int AS cpm_n,
      cost_total_1d::float8 AS c1d, cost_total_1d_n::int AS c1d_n, cost_total_7d::float8 AS c7d, cost_total_7d_n::int AS c7d_n,
      cost_total_30d::float8 AS c30d, cost_total_30d_n::int AS c30d_n
    FROM config_item_rollup WHERE n <> 0 ORDER BY 1, 2, 3, 4`);
  const counted = await t.db.query(`SELECT g.dim, g.value, ci.deleted_at IS NULL AS live, ci.health, count(*)::int AS n,
      coalesce(sum(ci.cost_per_minute), 0)::float8 AS cpm, count(ci.cost_per_minute)::int AS cpm_n,
      coalesce(sum(ci.cost_total_1d), 0)::float8 AS c1d, count(ci.cost_total_1d)::int AS c1d_n,
      coalesce(sum(ci.cost_total_7d), 0)::float8 AS c7d, count(ci.cost_total_7d)::int AS c7d_n,
      coalesce(sum(ci.cost_total_30d), 0)::float8 AS c30d, count(ci.cost_total_30d)::int AS c30d_n
    ${dims} GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`);
  const latest = await t.db.query(`SELECT l.dim, l.value, l.live, l.created_at, l.updated_at FROM config_item_rollup_latest l
    WHERE EXISTS (SELECT 1 FROM config_item_rollup r WHERE r.dim = l.dim AND r.value = l.value AND r.live = l.live AND r.n <> 0)
    ORDER BY 1, 2, 3`);
  const latestCounted = await t.db.query(`SELECT g.dim, g.value, ci.deleted_at IS NULL AS live, max(ci.created_at) AS created_at,
      max(ci.updated_at) AS updated_at ${dims} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`);
  return { kept: { groups: kept.rows, latest: latest.rows }, counted: { groups: counted.rows, latest: latestCounted.rows } };
}

async function expectRollupsExact(step: string) {
  const { kept, counted } = await rollupVsRecount();
  expect(counted.groups.length, step).toBeGreaterThan(0);
  expect(kept, step).toEqual(counted);
}

const summary = async (body: Record<string, unknown>) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/catalog/summary', headers: { ...admin, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  expect(res.statusCode, res.payload).toBe(200);
  return res.json() as ConfigSummaryRow[];
};

/** Rollup answer vs exact answer (`status: '!none'` is a filter that excludes nothing, so the exact path answers). */
async function expectSummaryExact(step: string) {
  for (const groupBy of [['type'], ['config_class'], ['namespace'], ['cluster']]) {
    for (const cost of ['1h', '30d']) {
      const fast = await summary({ groupBy, cost });
      expect(fast.length, `${step} ${groupBy[0]}`).toBeGreaterThan(0);
      expect(fast, `${step} ${groupBy[0]} ${cost}`).toEqual(await summary({ groupBy, cost, status: '!none' }));
    }
  }
}

async function item(n: number, fields: { type?: string; cls?: string; tags?: unknown; health?: string | null; cpm?: number | null; c30d?: number | null; ageDays?: number }) {
  await t.db.query(`INSERT INTO config_items (id, config_class, type, name, tags, health, cost_per_minute, cost_total_30d, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() - make_interval(days => $9), now() - make_interval(days => $9))`,
  [ID(n), fields.cls ?? 'Pod', fields.type ?? 'Kubernetes::Pod', `item-${n}`, fields.tags === undefined ? { cluster: 'a', namespace: 'ns-1' } : fields.tags,
    fields.health === undefined ? 'healthy' : fields.health, fields.cpm ?? null, fields.c30d ?? null, fields.ageDays ?? n]);
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await bearerHeaders(t.db, (await makePerson(t.db, { roles: ['admin'] })).id);
  await item(1, { cpm: 0.01, c30d: 432 });
  await item(2, { health: 'unhealthy', cpm: 0.02 });
  await item(3, { health: null, tags: { cluster: 'a' } }); // no namespace: the null group
  await item(4, { type: 'Kubernetes::Deployment', cls: 'Deployment', tags: { cluster: 'b', namespace: 'ns-2' }, c30d: 10 });
  await item(5, { type: 'File::Config', cls: 'Config', tags: null, health: 'warning' });
  await item(6, { tags: { cluster: 'b', namespace: null } }); // a JSON null tag has no value
  // one statement, several items (as a scrape writes them)
  await t.db.query(`INSERT INTO config_items (id, config_class, type, name, tags, health, created_at)
    SELECT ('0000000d-0000-4000-8000-' || lpad((100 + g)::text, 12, '0'))::uuid, 'Pod', 'Kubernetes::Pod', 'bulk-' || g,
           jsonb_build_object('cluster', 'c', 'namespace', 'ns-' || (g % 3)), 'healthy', now() - make_interval(days => 20 + g)
    FROM generate_series(1, 20) g`);
});
afterAll(() => t.close());

describe('catalog item rollups (0052)', () => {
  it('count inserts, one by one and in bulk, with null health, null costs, missing and JSON-null tags', async () => {
    await expectRollupsExact('insert');
    await expectSummaryExact('insert');
  });

  it('a change can be recorded for an item whose tag is JSON null (0051 refused it)', async () => {
    await t.db.query(`INSERT INTO config_changes (config_id, change_type) VALUES ($1, 'diff')`, [ID(6)]);
    const ns = Object.fromEntries((await summary({ groupBy: ['namespace'] })).map((r) => [String(r.group.namespace), r]));
    expect(ns.null).toMatchObject({ count: 3, changes: 1 }); // items 3 (no namespace), 5 (no tags), 6
  });

  it('follow updates: health, costs, retype, re-tag, updated_at moving back', async () => {
    await t.db.query(`UPDATE config_items SET health = 'unhealthy', updated_at = now() WHERE id = $1`, [ID(1)]);
    await t.db.query(`UPDATE config_items SET cost_per_minute = NULL, cost_total_7d = 5 WHERE id = $1`, [ID(2)]);
    await t.db.query(`UPDATE config_items SET type = 'Kubernetes::StatefulSet', config_class = 'StatefulSet' WHERE id = $1`, [ID(4)]);
    await t.db.query(`UPDATE config_items SET tags = '{"cluster": "b", "namespace": "ns-9"}' WHERE id = $1`, [ID(3)]);
    // the item holding the latest updated_at of its groups goes back in time: the groups are recounted
    await t.db.query(`UPDATE config_items SET updated_at = now() - interval '90 days' WHERE id = $1`, [ID(1)]);
    await expectRollupsExact('update');
    await expectSummaryExact('update');
  });

  it('follow soft deletes and restores, including the newest item of a group', async () => {
    await t.db.query(`UPDATE config_items SET deleted_at = now() WHERE id = ANY($1::uuid[])`, [[ID(2), ID(101)]]);
    await expectRollupsExact('soft delete');
    await expectSummaryExact('soft delete');
    expect((await summary({ groupBy: ['type'], deleted: true })).find((r) => r.type === 'Kubernetes::Pod')?.count).toBe(24);
    await t.db.query(`UPDATE config_items SET deleted_at = NULL WHERE id = $1`, [ID(101)]);
    await expectRollupsExact('restore');
  });

  it('follow removal: one item, and the retention batch that removes deleted items', async () => {
    await t.db.query(`DELETE FROM config_items WHERE id = $1`, [ID(1)]);
    await t.db.query(`UPDATE config_items SET deleted_at = now() - interval '40 days' WHERE name LIKE 'bulk-%' AND name <> 'bulk-20'`);
    await t.db.query(`DELETE FROM config_items WHERE deleted_at < now() - interval '30 days'`);
    await expectRollupsExact('remove');
    await expectSummaryExact('remove');
    // a group emptied entirely answers nothing
    await t.db.query(`DELETE FROM config_items WHERE type = 'File::Config'`);
    expect((await summary({ groupBy: ['type'] })).map((r) => r.type)).not.toContain('File::Config');
    await expectRollupsExact('group emptied');
  });
});

describe('catalog change rollup by hour (0052)', () => {
  const changes = async (body: Record<string, unknown>) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/catalog/changes', headers: { ...admin, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    expect(res.statusCode, res.payload).toBe(200);
    const { summary, total } = res.json() as { summary: Record<string, number>; total: number };
    return { summary, total };
  };
  const iso = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const windows = [{}, { from: 'now-30d' }, { from: 'now-45d' }, { from: iso(3 * 60 + 17), to: iso(47) }, { to: iso(125) }, { from: iso(20) }];

  /** Window-only searches (answered from the rollup) equal the same with a filter that excludes nothing (exact). */
  async function expectCountsExact(step: string) {
    const rows = await t.db.query<{ live: boolean; n: string }>(`SELECT live, sum(n) AS n FROM config_change_rollup GROUP BY live`);
    expect(rows.rows.length, step).toBeGreaterThan(0);
    for (const w of windows) {
      for (const include_deleted_configs of [false, true]) {
        const body = { ...w, include_deleted_configs };
        const fast = await changes(body);
        expect(fast, `${step} ${JSON.stringify(body)}`).toEqual(await changes({ ...body, type: '!__none__' }));
      }
    }
  }

  beforeAll(async () => {
    const live = (await t.db.query<{ id: string }>(`SELECT id FROM config_items ORDER BY id`)).rows.map((r) => r.id);
    // 300 changes over 40 days, across items and hours, one statement; some without a change type
    await t.db.query(`INSERT INTO config_changes (config_id, change_type, created_at)
      SELECT ($1::uuid[])[1 + g % cardinality($1::uuid[])], CASE WHEN g % 11 = 0 THEN NULL ELSE (ARRAY['diff', 'Pulled', 'BackOff'])[1 + g % 3] END,
             now() - make_interval(mins => g * 193)
      FROM generate_series(0, 299) g`, [live]);
    await t.db.query(`INSERT INTO config_changes (config_id, change_type, created_at) VALUES ($1, 'diff', now() - interval '5 minutes')`, [live[0]]);
  });

  it('count inserted changes by hour, live and deleted items apart', async () => {
    await expectCountsExact('insert');
    expect((await changes({ from: 'now-45d' })).total).toBeGreaterThan(200);
  });

  it('follow changes moved in time, items deleted, restored and removed, and retention deletes', async () => {
    await t.db.query(`UPDATE config_changes SET created_at = created_at - interval '90 minutes', change_type = 'Moved' WHERE change_type = 'Pulled' AND created_at > now() - interval '3 days'`);
    const [first, second] = (await t.db.query<{ id: string }>(`SELECT config_id AS id FROM config_changes GROUP BY 1 ORDER BY count(*) DESC LIMIT 2`)).rows;
    await t.db.query(`UPDATE config_items SET deleted_at = now() WHERE id = ANY($1::uuid[])`, [[first.id, second.id]]);
    await expectCountsExact('item deleted');
    await t.db.query(`UPDATE config_items SET deleted_at = NULL WHERE id = $1`, [second.id]);
    await expectCountsExact('item restored');
    await t.db.query(`DELETE FROM config_items WHERE id = ANY($1::uuid[])`, [[first.id, second.id]]);
    await t.db.query(`DELETE FROM config_changes WHERE created_at < now() - interval '30 days'`);
    await expectCountsExact('removed');
    // the rollup holds exactly the changes there are
    const { rows } = await t.db.query(`SELECT (SELECT sum(n) FROM config_change_rollup)::int AS kept, (SELECT count(*) FROM config_changes)::int AS counted`);
    expect(rows[0].kept).toBe(rows[0].counted);
  });
});
