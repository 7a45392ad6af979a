import type pg from 'pg';
import { inTransaction } from '../../../lib/tx.js';
import {
  existingComponents, insertComponents, lockTopology, newIds, softDelete, updateComponents, WRITTEN_COLUMNS,
  type ComponentValues, type ExistingComponent, type InsertRow, type UpdateRow, type WrittenColumn,
} from './queries.js';
import type { BuiltComponent, SavedComponent } from './types.js';

/**
 * The save (issue 13 "Runs"): one transaction per run, under the topology's advisory lock. Each built component is
 * matched to its row on (topology_id, type, name, parent_id), the table's unique key, so ids — and the links, evidence
 * and `hidden` hanging off them — are stable across rebuilds; a soft-deleted row that reappears is revived. A row whose
 * written columns already hold the built values is not touched (no updated_at move, no roll-up); components that
 * vanished are soft-deleted with their links. Parents are written before their children, one statement per level.
 */

export interface SaveCounts { inserted: number; updated: number; unchanged: number; deleted: number }
export interface SaveResult { saved: SavedComponent[]; counts: SaveCounts; notes: string[] }

const COLS = Object.keys(WRITTEN_COLUMNS) as WrittenColumn[];
const VOTES = new Set(['healthy', 'unhealthy', 'warning', 'info', 'unknown']);
const keyOf = (type: unknown, name: unknown, parentId: string | null) => JSON.stringify([type ?? null, name, parentId]);

/** The row values of a built component (what the save writes and compares). */
function valuesOf(b: BuiltComponent, topologyType: string | null, schedule: string | null): ComponentValues {
  const status = b.status && VOTES.has(b.status) ? b.status : undefined;
  return {
    external_id: b.externalId, name: b.name, text: b.text ?? null, topology_type: topologyType, namespace: b.namespace ?? null,
    labels: b.labels && Object.keys(b.labels).length ? b.labels : null, status_expr: b.statusExpr ?? null,
    health_expr: b.healthExpr ?? null, health: b.health ?? status ?? null, status_reason: b.statusReason ?? null,
    schedule, icon: b.icon ?? null, type: b.type ?? null, owner: b.owner ?? null, description: b.description ?? null,
    lifecycle: b.lifecycle ?? null, tooltip: b.tooltip ?? null, selectors: b.selectors ?? null, log_selectors: b.logs ?? null,
    component_checks: b.checks ?? null, configs: b.configs ?? null, properties: b.properties?.length ? b.properties : null,
    is_leaf: b.children.length === 0, config_id: b.configId ?? null, static_summary: b.summary ?? null,
  };
}

/** Structural equality of JSON values: object key order and undefined/null do not matter. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => sameJson(x, (b as unknown[])[i]));
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

const unchanged = (row: ExistingComponent, want: ComponentValues, hidden: boolean) =>
  !row.deleted && (!hidden || row.hidden) && COLS.every((c) => sameJson(row[c], want[c]));

export interface SaveOptions {
  topologyId: string;
  /** The topology's spec.type, on every component (topology_type). */
  topologyType: string | null;
  schedule: string | null;
}

/** Saves a built tree in one transaction; returns every live component with its row id. */
export async function saveTree(db: pg.Pool, root: BuiltComponent, opts: SaveOptions): Promise<SaveResult> {
  return inTransaction(db, async (client) => {
    await lockTopology(client, opts.topologyId);
    return saveLocked(client, root, opts);
  });
}

async function saveLocked(client: pg.PoolClient, root: BuiltComponent, opts: SaveOptions): Promise<SaveResult> {
  const existing = new Map<string, ExistingComponent>();
  for (const row of await existingComponents(client, opts.topologyId)) existing.set(keyOf(row.type, row.name, row.parent_id), row);
  const counts: SaveCounts = { inserted: 0, updated: 0, unchanged: 0, deleted: 0 };
  const notes: string[] = [];
  const saved: SavedComponent[] = [];
  const seen = new Set<string>();
  let level: Array<{ built: BuiltComponent; parentId: string | null }> = [{ built: root, parentId: null }];
  while (level.length) {
    const inserts: Array<Omit<InsertRow, 'id'> & { built: BuiltComponent }> = [];
    const updates: UpdateRow[] = [];
    const placed: Array<{ built: BuiltComponent; id: string | null; parentId: string | null; insertAt?: number }> = [];
    for (const { built, parentId } of level) {
      const key = keyOf(built.type, built.name, parentId);
      if (seen.has(key)) {
        notes.push(`${built.specPath}: a second component "${built.name}"${built.type ? ` of type ${built.type}` : ''} under the same parent is left out`);
        continue;
      }
      seen.add(key);
      const want = valuesOf(built, opts.topologyType, opts.schedule);
      const row = existing.get(key);
      // health from a healthExpr is the run's to write after the roll-up, not the save's
      if (row && built.healthExpr) want.health = row.health;
      const hidden = built.hidden === true;
      if (!row) {
        placed.push({ built, id: null, parentId, insertAt: inserts.length });
        inserts.push({ ...want, parent_id: parentId, hidden, built });
        continue;
      }
      existing.delete(key);
      placed.push({ built, id: row.id, parentId });
      if (unchanged(row, want, hidden)) counts.unchanged++;
      else updates.push({ ...want, id: row.id, hidden });
    }
    const ids = await newIds(client, inserts.length);
    await insertComponents(client, opts.topologyId, inserts.map(({ built: _b, ...r }, i) => ({ ...r, id: ids[i] })));
    await updateComponents(client, updates);
    counts.inserted += inserts.length;
    counts.updated += updates.length;
    const next: typeof level = [];
    for (const p of placed) {
      const id = p.id ?? ids[p.insertAt!];
      saved.push({ id, parentId: p.parentId, built: p.built });
      for (const child of p.built.children) next.push({ built: child, parentId: id });
    }
    level = next;
  }
  // what is left was not built this time: soft-deleted (already deleted rows stay as they are)
  const gone = [...existing.values()].filter((r) => !r.deleted).map((r) => r.id);
  await softDelete(client, gone);
  counts.deleted = gone.length;
  return { saved, counts, notes };
}
