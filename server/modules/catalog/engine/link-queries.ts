import type pg from 'pg';

/** The save's SQL for what hangs off items: insights and relationships, parameterised (see queries.ts for items). */

type Q = Pick<pg.Pool | pg.PoolClient, 'query'>;

export interface AnalysisWrite {
  config_id: string;
  analyzer: string;
  analysis_type: string;
  severity: string;
  summary: string | null;
  message: string | null;
  analysis: unknown;
  source: string | null;
}

/** One open insight per (item, analyzer): seen again it is touched (last_observed) and reopened if it was resolved. */
export async function upsertAnalysis(c: Q, scraperId: string, rows: AnalysisWrite[], at: Date): Promise<void> {
  if (!rows.length) return;
  await c.query(
    `INSERT INTO config_analysis AS ca (config_id, scraper_id, analyzer, analysis_type, severity, summary, message, analysis,
       source, status, first_observed, last_observed)
     SELECT r.config_id, $2, r.analyzer, r.analysis_type, r.severity, r.summary, r.message, r.analysis, r.source, 'open', $3, $3
     FROM jsonb_to_recordset($1::jsonb) AS r(config_id uuid, analyzer text, analysis_type text, severity text, summary text,
       message text, analysis jsonb, source text)
     ON CONFLICT (config_id, analyzer) DO UPDATE SET scraper_id = excluded.scraper_id, analysis_type = excluded.analysis_type,
       severity = excluded.severity, summary = excluded.summary, message = excluded.message, analysis = excluded.analysis,
       source = excluded.source, status = 'open', last_observed = excluded.last_observed,
       first_observed = CASE WHEN ca.status = 'open' THEN ca.first_observed ELSE excluded.first_observed END`,
    [JSON.stringify(rows), scraperId, at]);
}

/**
 * Open insights of this scraper on items of `types` that the run did not report again become resolved. `itemIds`
 * limits it to the items the run saw (a partial result); null means every item of the scraper (a complete one).
 */
export async function resolveAnalysis(
  c: Q, scraperId: string, types: string[], itemIds: string[] | null, keep: { config_id: string; analyzer: string }[],
): Promise<number> {
  if (!types.length) return 0;
  const { rowCount } = await c.query(
    `UPDATE config_analysis ca SET status = 'resolved'
     FROM config_items ci
     WHERE ci.id = ca.config_id AND ca.scraper_id = $1 AND ca.status = 'open' AND ci.type = ANY($2::text[])
       AND ($3::uuid[] IS NULL OR ca.config_id IN (SELECT unnest($3::uuid[])))
       AND (ca.config_id, ca.analyzer) NOT IN (SELECT * FROM unnest($4::uuid[], $5::text[]))`,
    [scraperId, types, itemIds, keep.map((k) => k.config_id), keep.map((k) => k.analyzer)]);
  return rowCount ?? 0;
}

/**
 * This scraper's live relationships as `from to relation` keys (ids have no spaces), all of them or those from `fromIds`:
 * the save leaves these alone, since ON CONFLICT would lock (and so write) every one of them again.
 */
export async function liveRelationships(c: Q, scraperId: string, fromIds: string[] | null): Promise<Set<string>> {
  const { rows } = await c.query<{ k: string }>(
    `SELECT config_id || ' ' || related_id || ' ' || relation AS k FROM config_relationships
     WHERE scraper_id = $1 AND deleted_at IS NULL AND ($2::uuid[] IS NULL OR config_id = ANY($2::uuid[]))`, [scraperId, fromIds]);
  return new Set(rows.map((r) => r.k));
}

/** Relationships reported by this scraper: new ones inserted, deleted ones revived, live ones left as they are. */
export async function upsertRelationships(c: Q, scraperId: string, from: string[], to: string[], relation: string[]): Promise<number> {
  if (!from.length) return 0;
  const { rowCount } = await c.query(
    `INSERT INTO config_relationships AS cr (config_id, related_id, relation, scraper_id)
     SELECT DISTINCT * FROM (SELECT unnest($1::uuid[]), unnest($2::uuid[]), unnest($3::text[]), $4::uuid) AS u
     ON CONFLICT (related_id, config_id, relation, scraper_id)
       DO UPDATE SET deleted_at = NULL, updated_at = now() WHERE cr.deleted_at IS NOT NULL`,
    [from, to, relation, scraperId]);
  return rowCount ?? 0;
}

/**
 * After a complete run: this scraper's live relationships it did not report get deleted_at. A parent's `hard` link
 * (written by the parent_id trigger) stands while the child still has that parent.
 */
export async function deleteUnreportedRelationships(
  c: Q, scraperId: string, from: string[], to: string[], relation: string[], at: Date,
): Promise<number> {
  const { rowCount } = await c.query(
    `UPDATE config_relationships cr SET deleted_at = $5, updated_at = now()
     WHERE cr.scraper_id = $4 AND cr.deleted_at IS NULL
       AND (cr.config_id, cr.related_id, cr.relation) NOT IN (SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[]))
       AND NOT (cr.relation = 'hard' AND EXISTS (
         SELECT 1 FROM config_items ci WHERE ci.id = cr.related_id AND ci.parent_id = cr.config_id))`,
    [from, to, relation, scraperId, at]);
  return rowCount ?? 0;
}
