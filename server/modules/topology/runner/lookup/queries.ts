import type pg from 'pg';

export interface ConfigMatch {
  name?: string;
  type?: string;
  /** Matched against the item's tags or its labels (every pair must be there). */
  tags?: Record<string, string>;
}

/** The fields of a config item a lookup yields (never its scraper's or the row's bookkeeping). */
export interface ConfigRow {
  id: string;
  name: string | null;
  type: string;
  config_class: string;
  description: string | null;
  status: string | null;
  health: string | null;
  tags: Record<string, string> | null;
  labels: Record<string, string> | null;
  config: unknown;
}

/** Live config items matching name, type (case-insensitive, as the catalog's types are written either way) and tags. */
export async function findConfigItems(db: Pick<pg.Pool, 'query'>, m: ConfigMatch, limit: number): Promise<ConfigRow[]> {
  const tags = m.tags && Object.keys(m.tags).length ? JSON.stringify(m.tags) : null;
  const { rows } = await db.query<ConfigRow>(
    `SELECT id, name, type, config_class, description, status, health, tags, labels, config
       FROM config_items
      WHERE deleted_at IS NULL
        AND ($1::text IS NULL OR name = $1)
        AND ($2::text IS NULL OR lower(type) = lower($2))
        AND ($3::jsonb IS NULL OR tags @> $3::jsonb OR labels @> $3::jsonb)
      ORDER BY name, id
      LIMIT $4`,
    [m.name ?? null, m.type ?? null, tags, limit],
  );
  return rows;
}
