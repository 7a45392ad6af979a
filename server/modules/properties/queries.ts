import type pg from 'pg';

/** Live properties as a name → value map. */
export async function propertyMap(db: pg.Pool): Promise<Record<string, string>> {
  const { rows } = await db.query<{ name: string; value: string }>(
    'SELECT name, value FROM properties WHERE deleted_at IS NULL ORDER BY name',
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.value]));
}
