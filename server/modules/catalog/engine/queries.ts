import type pg from 'pg';

/**
 * The scrape engine's SQL, parameterised. Rows travel as one JSON array parameter read with jsonb_to_recordset: one
 * statement per batch whatever its size, no per-row round trips.
 */

type Q = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** The columns of config_items the engine writes and compares. */
export interface ItemRow {
  id: string;
  type: string;
  config_class: string;
  external_id: string[];
  name: string | null;
  config: unknown;
  labels: Record<string, string> | null;
  tags: Record<string, string> | null;
  health: string | null;
  status: string | null;
  ready: boolean | null;
  description: string | null;
  icon: string | null;
  source: string | null;
  parent_id: string | null;
  path: string | null;
  properties: unknown[] | null;
  cost_per_minute: number | null;
  cost_total_1d: number | null;
  cost_total_7d: number | null;
  cost_total_30d: number | null;
  deleted_at: string | null;
  delete_reason: string | null;
}

export interface StoredItem extends Omit<ItemRow, 'config'> {
  scraper_id: string | null;
  created_at: string;
}

/** What a re-scrape reads of each stored item: enough to match it and rebuild its row, and its fingerprint. */
export interface StoredRef {
  id: string;
  type: string;
  external_id: string[] | null;
  deleted_at: string | null;
  delete_reason: string | null;
  created_at: string;
  /** The engine's hash of the row, only while the row is still the version it was taken from. */
  scrape_hash: string | null;
}

const REF_COLUMNS = `ci.id, ci.type, ci.external_id, ci.deleted_at, ci.delete_reason, ci.created_at, h.hash AS scrape_hash
  FROM config_items ci LEFT JOIN config_items_scrape_hash h ON h.config_id = ci.id AND h.item_xmin = ci.xmin`;

const ITEM_COLUMNS = `id, scraper_id, type, config_class, external_id, name, labels, tags, health, status, ready, description,
  icon, source, parent_id, path, properties, cost_per_minute::float8 AS cost_per_minute, cost_total_1d::float8 AS cost_total_1d,
  cost_total_7d::float8 AS cost_total_7d, cost_total_30d::float8 AS cost_total_30d, deleted_at, delete_reason, created_at`;

const RECORD = `r(id uuid, type text, config_class text, external_id text[], name text, config jsonb, labels jsonb, tags jsonb,
  health text, status text, ready boolean, description text, icon text, source text, parent_id uuid, path text,
  properties jsonb, cost_per_minute numeric, cost_total_1d numeric, cost_total_7d numeric, cost_total_30d numeric,
  created_at timestamptz, deleted_at timestamptz, delete_reason text)`;

/** This scraper's stored items named by any of `externalIds` (deleted ones too: an item seen again comes back). */
export async function storedByExternalIds(c: Q, scraperId: string, externalIds: string[]): Promise<StoredRef[]> {
  const { rows } = await c.query<StoredRef>(
    `SELECT ${REF_COLUMNS} WHERE ci.scraper_id = $1 AND ci.external_id && $2::text[]`, [scraperId, externalIds]);
  return rows;
}

/** Every stored item of this scraper of these types: cheaper than an id lookup for a whole source's worth of items. */
export async function storedByTypes(c: Q, scraperId: string, types: string[]): Promise<StoredRef[]> {
  const { rows } = await c.query<StoredRef>(
    `SELECT ${REF_COLUMNS} WHERE ci.scraper_id = $1 AND ci.type = ANY($2::text[])`, [scraperId, types]);
  return rows;
}

/** The stored rows and configs of these items (those whose fingerprint does not match), compared column by column. */
export async function storedRows(c: Q, ids: string[]): Promise<Map<string, StoredItem & { config: unknown }>> {
  if (!ids.length) return new Map();
  const { rows } = await c.query<StoredItem & { config: unknown }>(
    `SELECT ${ITEM_COLUMNS}, config FROM config_items WHERE id = ANY($1::uuid[])`, [ids]);
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * Records the fingerprint of rows just written or found equal, with the row version it holds for: called in the
 * transaction that wrote them, so a row this one updated carries this transaction's xmin.
 */
export async function writeScrapeHashes(c: Q, ids: string[], hashes: string[]): Promise<void> {
  if (!ids.length) return;
  await c.query(
    `INSERT INTO config_items_scrape_hash (config_id, hash, item_xmin)
     SELECT ci.id, r.hash, ci.xmin FROM unnest($1::uuid[], $2::text[]) AS r(id, hash) JOIN config_items ci ON ci.id = r.id
     ON CONFLICT (config_id) DO UPDATE SET hash = excluded.hash, item_xmin = excluded.item_xmin`, [ids, hashes]);
}

export interface RefHit {
  type: string;
  ext: string;
  id: string;
  path: string | null;
}

/**
 * Items named by (type, external id) anywhere in the catalog, for refs to items this result does not carry (a
 * parent, the item of an event): this scraper's own first, then live ones, then the newest.
 */
export async function resolveRefs(c: Q, scraperId: string, types: string[], exts: string[]): Promise<RefHit[]> {
  if (!types.length) return [];
  const { rows } = await c.query<RefHit>(
    `SELECT DISTINCT ON (u.type, u.ext) u.type, u.ext, ci.id, ci.path
     FROM unnest($1::text[], $2::text[]) AS u(type, ext)
     JOIN config_items ci ON ci.type = u.type AND ci.external_id @> ARRAY[u.ext]
     ORDER BY u.type, u.ext, (ci.scraper_id IS NOT DISTINCT FROM $3::uuid) DESC, (ci.deleted_at IS NULL) DESC, ci.created_at DESC`,
    [types, exts, scraperId]);
  return rows;
}

/** `n` new ids from the same generator as the table's default (time-ordered). */
export async function newIds(c: Q, n: number): Promise<string[]> {
  if (n <= 0) return [];
  const { rows } = await c.query<{ id: string }>('SELECT generate_ulid() AS id FROM generate_series(1, $1)', [n]);
  return rows.map((r) => r.id);
}

export interface ItemWrite extends ItemRow {
  created_at: string | null;
}

export async function insertItems(c: Q, scraperId: string, rows: ItemWrite[]): Promise<void> {
  if (!rows.length) return;
  await c.query(
    `INSERT INTO config_items (id, scraper_id, type, config_class, external_id, name, config, labels, tags, health, status,
       ready, description, icon, source, parent_id, path, properties, cost_per_minute, cost_total_1d, cost_total_7d,
       cost_total_30d, created_at, deleted_at, delete_reason)
     SELECT r.id, $2, r.type, r.config_class, r.external_id, r.name, r.config, r.labels, r.tags, r.health, r.status, r.ready,
       r.description, r.icon, r.source, r.parent_id, r.path, r.properties, r.cost_per_minute, r.cost_total_1d,
       r.cost_total_7d, r.cost_total_30d, coalesce(r.created_at, now()), r.deleted_at, r.delete_reason
     FROM jsonb_to_recordset($1::jsonb) AS ${RECORD}`,
    [JSON.stringify(rows), scraperId]);
}

/** Rewrites changed rows whole (the updated_at trigger stamps them); unchanged rows are never sent here. */
export async function updateItems(c: Q, rows: ItemWrite[]): Promise<void> {
  if (!rows.length) return;
  await c.query(
    `UPDATE config_items ci SET type = r.type, config_class = r.config_class, external_id = r.external_id, name = r.name,
       config = r.config, labels = r.labels, tags = r.tags, health = r.health, status = r.status, ready = r.ready,
       description = r.description, icon = r.icon, source = r.source, parent_id = r.parent_id, path = r.path,
       properties = r.properties, cost_per_minute = r.cost_per_minute, cost_total_1d = r.cost_total_1d,
       cost_total_7d = r.cost_total_7d, cost_total_30d = r.cost_total_30d, deleted_at = r.deleted_at,
       delete_reason = r.delete_reason
     FROM jsonb_to_recordset($1::jsonb) AS ${RECORD}
     WHERE ci.id = r.id`,
    [JSON.stringify(rows)]);
}

export async function touchLastScraped(c: Q, ids: string[], at: Date): Promise<void> {
  if (!ids.length) return;
  await c.query(
    `INSERT INTO config_items_last_scraped_time (config_id, last_scraped_time)
     SELECT unnest($1::uuid[]), $2
     ON CONFLICT (config_id) DO UPDATE SET last_scraped_time = excluded.last_scraped_time, updated_at = now()`,
    [ids, at]);
}

/** A config_changes row: a `diff` of the engine's own, or a change the extractor reported. */
export interface ChangeWrite {
  config_id: string;
  external_change_id: string | null;
  change_type: string;
  severity: string | null;
  source: string | null;
  summary: string | null;
  patches: unknown;
  diff: string | null;
  details: unknown;
  created_at: string;
  first_observed: string | null;
  /** Given by the source (an Event's count): a repeat keeps the larger; absent: a repeat adds one. */
  count: number | null;
  external_created_by: string | null;
}

/**
 * Inserts changes; a repeat of (config_id, external_change_id) raises its count instead of adding a row. A count the
 * source gives (an Event's) is the truth: a repeat keeps the larger, so scraping the same Event twice (a watch, then
 * a scheduled run) does not count it twice. Without one, a repeat adds one. Two statements, since ON CONFLICT sees
 * only the inserted value, not whether the source gave it. Answers the item of each row written (inserted or changed).
 */
export async function upsertChanges(c: Q, rows: ChangeWrite[]): Promise<string[]> {
  const counted = rows.filter((r) => r.count !== null);
  const uncounted = rows.filter((r) => r.count === null);
  const written: string[] = [];
  if (counted.length) written.push(...await upsertChangeRows(c, counted, 'greatest(cc.count, excluded.count)'));
  if (uncounted.length) written.push(...await upsertChangeRows(c, uncounted, 'cc.count + 1'));
  return written;
}

// `repeat` is one of the two constant expressions above, never input. A repeat that would leave the row as it is (the
// same Event at the same count, scraped again) is not rewritten: an unchanged re-scrape writes no change rows.
async function upsertChangeRows(c: Q, rows: ChangeWrite[], repeat: string): Promise<string[]> {
  const { rows: written } = await c.query<{ config_id: string }>(
    `INSERT INTO config_changes AS cc (config_id, external_change_id, change_type, severity, source, summary, patches, diff,
       details, created_at, first_observed, count, external_created_by)
     SELECT r.config_id, r.external_change_id, r.change_type, r.severity, r.source, r.summary, r.patches, r.diff, r.details,
       r.created_at, coalesce(r.first_observed, r.created_at), coalesce(r.count, 1), r.external_created_by
     FROM jsonb_to_recordset($1::jsonb) AS r(config_id uuid, external_change_id text, change_type text, severity text,
       source text, summary text, patches jsonb, diff text, details jsonb, created_at timestamptz, first_observed timestamptz,
       count integer, external_created_by text)
     ON CONFLICT (config_id, external_change_id) DO UPDATE SET
       count = ${repeat},
       created_at = greatest(cc.created_at, excluded.created_at), severity = excluded.severity,
       summary = excluded.summary, details = excluded.details, source = excluded.source
     WHERE (cc.count, cc.created_at, cc.severity, cc.summary, cc.details, cc.source)
       IS DISTINCT FROM (${repeat}, greatest(cc.created_at, excluded.created_at), excluded.severity, excluded.summary,
         excluded.details, excluded.source)
     RETURNING cc.config_id`,
    [JSON.stringify(rows)]);
  return written.map((r) => r.config_id);
}

/** Marks items deleted (an observed deletion, a `delete` change mapping); already deleted ones keep their time. */
export async function markDeleted(c: Q, ids: string[], at: Date, reason: string): Promise<number> {
  if (!ids.length) return 0;
  const { rowCount } = await c.query(
    `UPDATE config_items SET deleted_at = $2, delete_reason = $3 WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL`,
    [ids, at, reason]);
  return rowCount ?? 0;
}

/**
 * After a complete run: this scraper's live items the run did not return are deleted, at once (`immediately`) or
 * once they have not been scraped for `staleMs`. Answers the deleted rows' types.
 */
export async function deleteMissingItems(
  c: Q, scraperId: string, seen: string[], at: Date, opts: { immediately: boolean; staleMs: number; keepScrapedSince: Date },
): Promise<{ type: string }[]> {
  const { rows } = await c.query<{ type: string }>(
    `UPDATE config_items ci SET deleted_at = $3, delete_reason = $4
     FROM (SELECT ci2.id, coalesce(l.last_scraped_time, ci2.created_at) AS seen_at FROM config_items ci2
           LEFT JOIN config_items_last_scraped_time l ON l.config_id = ci2.id
           WHERE ci2.scraper_id = $1 AND ci2.deleted_at IS NULL) s
     WHERE ci.id = s.id AND ci.id NOT IN (SELECT unnest($2::uuid[])) AND s.seen_at < $7
       AND ($5::boolean OR s.seen_at < $3::timestamptz - make_interval(secs => $6::double precision / 1000))
     RETURNING ci.type`,
    [scraperId, seen, at, opts.immediately ? 'not found' : 'stale', opts.immediately, opts.staleMs, opts.keepScrapedSince]);
  return rows;
}

export async function replaceLocations(c: Q, ids: string[], locIds: string[], locations: string[]): Promise<void> {
  if (!ids.length) return;
  await c.query(
    `DELETE FROM config_locations l WHERE l.id = ANY($1::uuid[])
       AND (l.id, l.location) NOT IN (SELECT * FROM unnest($2::uuid[], $3::text[]))`, [ids, locIds, locations]);
  await c.query(
    `INSERT INTO config_locations (id, location) SELECT * FROM unnest($1::uuid[], $2::text[]) ON CONFLICT DO NOTHING`,
    [locIds, locations]);
}

/** The console's own agent: scrapers of other agents run there, not here. */
const LOCAL_AGENT = '00000000-0000-0000-0000-000000000000';

/** A cheap fingerprint of config_scrapers: any insert, edit or (soft) delete changes it. */
export async function scrapersSignature(c: Q): Promise<string> {
  const { rows } = await c.query<{ sig: string }>(
    `SELECT count(*)::text || '/' || coalesce(max(updated_at)::text, '') || '/' || coalesce(max(created_at)::text, '') AS sig
     FROM config_scrapers WHERE agent_id = $1`, [LOCAL_AGENT]);
  return rows[0].sig;
}

export interface LiveScraper {
  id: string;
  name: string | null;
  namespace: string | null;
  spec: Record<string, unknown>;
}

/** Live scrapers of this agent (console-made and CRs alike). */
export async function liveScrapers(c: Q): Promise<LiveScraper[]> {
  const { rows } = await c.query<LiveScraper>(
    `SELECT id, name, namespace, spec FROM config_scrapers WHERE deleted_at IS NULL AND agent_id = $1 ORDER BY id`, [LOCAL_AGENT]);
  return rows;
}

export async function liveScraper(c: Q, id: string): Promise<LiveScraper | undefined> {
  const { rows } = await c.query<LiveScraper>(
    `SELECT id, name, namespace, spec FROM config_scrapers WHERE id = $1 AND deleted_at IS NULL`, [id]);
  return rows[0];
}
