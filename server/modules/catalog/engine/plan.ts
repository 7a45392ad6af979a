import type pg from 'pg';
import type { ItemRef, ScrapedItem } from '../types.js';
import { hash } from 'node:crypto';
import { canonical, diffConfigs, normalise, type ConfigDiff } from './diff.js';
import { newIds, resolveRefs, storedByExternalIds, storedByTypes, storedRows, type ItemWrite, type StoredItem, type StoredRef } from './queries.js';

/** What the save does with one scraped item. */
export interface PlannedItem {
  item: ScrapedItem;
  row: ItemWrite;
  /** insert: new; update: a column differs; unchanged: nothing is written but last_scraped_time. */
  op: 'insert' | 'update' | 'unchanged';
  /** The config's diff against the stored one (updates only). */
  diff: ConfigDiff | null;
  /** The row's fingerprint (md5 of its compared columns and config). */
  hash: string;
  /** The fingerprint is (re)written: the row is inserted or updated, or it was compared in full and found equal. */
  fingerprint: boolean;
  /** How many ancestors are in this result before it (new parents are inserted before their children). */
  depth: number;
}

export const refKey = (type: string, externalId: string) => `${type}\u0000${externalId}`;

/** Above this many items the scraper's stored rows are read by type rather than looked up by id. */
const LOOKUP_BY_TYPE_ABOVE = 500;
/** A chain of parents longer than this is a loop in the source's refs. */
const MAX_DEPTH = 64;

const iso = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(v as string).toISOString());

/** The last of several items with the same (type, external id) wins, as the source's latest word. */
function dedupe(items: ScrapedItem[]): ScrapedItem[] {
  const byKey = new Map<string, ScrapedItem>();
  for (const item of items) byKey.set(refKey(item.type, item.externalId), item);
  return [...byKey.values()];
}

/** A live row before a deleted one, then the newest: the one an external id names. */
const preferred = (a: StoredRef, b: StoredRef) =>
  (a.deleted_at === null) !== (b.deleted_at === null) ? a.deleted_at === null : a.created_at > b.created_at;

async function loadStored(db: pg.Pool, scraperId: string, items: ScrapedItem[]): Promise<Map<string, StoredRef>> {
  const rows = items.length > LOOKUP_BY_TYPE_ABOVE
    ? await storedByTypes(db, scraperId, [...new Set(items.map((i) => i.type))])
    : await storedByExternalIds(db, scraperId, [...new Set(items.flatMap((i) => [i.externalId, ...(i.aliases ?? [])]))]);
  const byRef = new Map<string, StoredRef>();
  for (const row of rows) {
    row.deleted_at = iso(row.deleted_at);
    row.created_at = iso(row.created_at)!;
    for (const ext of row.external_id ?? []) {
      const k = refKey(row.type, ext);
      const cur = byRef.get(k);
      if (!cur || preferred(row, cur)) byRef.set(k, row);
    }
  }
  return byRef;
}

/** The columns compared to decide whether a stored row is rewritten. */
const COMPARED: (keyof ItemWrite & keyof StoredItem)[] = [
  'type', 'config_class', 'external_id', 'name', 'labels', 'tags', 'health', 'status', 'ready', 'description', 'icon',
  'source', 'parent_id', 'path', 'properties', 'cost_per_minute', 'cost_total_1d', 'cost_total_7d', 'cost_total_30d',
  'deleted_at', 'delete_reason',
];

function sameColumns(a: ItemWrite, b: StoredItem): boolean {
  return COMPARED.every((k) => canonical(normalise(a[k] ?? null)) === canonical(normalise(b[k] ?? null)));
}

/**
 * The fingerprint of a row as written: its compared columns and config in the order built. Equal fingerprints mean an
 * equal row; a different one (a config's keys in another order too) only sends the row to the full comparison.
 */
const fingerprint = (row: ItemWrite) => hash('md5', JSON.stringify([...COMPARED.map((k) => row[k] ?? null), row.config ?? null]));

/**
 * Decides, for every item of a result, its id (stored or new), parent and path, and whether it is inserted, rewritten
 * or left alone; computes the diff of each changed config. Reads only.
 */
export async function planItems(db: pg.Pool, scraperId: string, scraped: ScrapedItem[]): Promise<{
  planned: PlannedItem[];
  /** (type, external id) → item id, for everything this result names: its own items and the refs found stored. */
  idOf: (ref: ItemRef) => string | undefined;
  /** Refs to items neither in the result nor stored: resolved from the catalog at large. */
  resolve: (refs: ItemRef[]) => Promise<void>;
}> {
  const items = dedupe(scraped);
  const stored = await loadStored(db, scraperId, items);
  const used = new Set<string>();
  const matches = items.map((item) => {
    for (const ext of [item.externalId, ...(item.aliases ?? [])]) {
      const s = stored.get(refKey(item.type, ext));
      // two items of one result never share a row (aliases that overlap): the second is new
      if (s && !used.has(s.id)) {
        used.add(s.id);
        return s;
      }
    }
    return undefined;
  });
  const fresh = await newIds(db, matches.filter((m) => !m).length);
  const ids = matches.map((m) => m?.id ?? fresh.shift()!);

  const known = new Map<string, { id: string; path: string | null; index?: number }>();
  items.forEach((item, i) => {
    for (const ext of [item.externalId, ...(item.aliases ?? [])]) known.set(refKey(item.type, ext), { id: ids[i], path: null, index: i });
  });
  const resolve = async (refs: ItemRef[]) => {
    const missing = [...new Map(refs.filter((r) => !known.has(refKey(r.type, r.externalId)))
      .map((r) => [refKey(r.type, r.externalId), r])).values()];
    if (!missing.length) return;
    const hits = await resolveRefs(db, scraperId, missing.map((r) => r.type), missing.map((r) => r.externalId));
    for (const h of hits) known.set(refKey(h.type, h.ext), { id: h.id, path: h.path });
  };
  await resolve(items.flatMap((i) => (i.parent ? [i.parent] : [])));

  // parents and paths: ancestors' ids joined by '.', the parent's own path first
  const paths: (string | null | undefined)[] = new Array(items.length);
  const depths: number[] = new Array(items.length).fill(0);
  const parentIds: (string | null)[] = new Array(items.length).fill(null);
  const pathOf = (i: number, hops: number): string | null => {
    if (paths[i] !== undefined) return paths[i]!;
    const ref = items[i].parent;
    const parent = ref ? known.get(refKey(ref.type, ref.externalId)) : undefined;
    if (!parent || parent.id === ids[i] || hops > MAX_DEPTH) return (paths[i] = null);
    paths[i] = null; // a loop back here ends at this item
    const above = parent.index !== undefined ? pathOf(parent.index, hops + 1) : parent.path;
    parentIds[i] = parent.id;
    if (parent.index !== undefined) depths[i] = depths[parent.index] + 1;
    return (paths[i] = above ? `${above}.${parent.id}` : parent.id);
  };
  items.forEach((_, i) => pathOf(i, 0));

  const rows = items.map((item, i): ItemWrite => {
    const s = matches[i];
    const externalIds = [...new Set([item.externalId, ...(item.aliases ?? []), ...(s?.external_id ?? [])])];
    const observedDeleted = item.deletedAt !== undefined;
    return {
      id: ids[i], type: item.type, config_class: item.configClass, external_id: externalIds, name: item.name ?? null,
      config: item.config ?? null, labels: item.labels ? normalise(item.labels) as Record<string, string> : null,
      tags: item.tags ? normalise(item.tags) as Record<string, string> : null, health: item.health ?? null, status: item.status ?? null,
      ready: item.ready ?? null, description: item.description ?? null, icon: item.icon ?? null, source: item.source ?? null,
      parent_id: parentIds[i], path: paths[i] ?? null, properties: item.properties ? normalise(item.properties) as unknown[] : null,
      cost_per_minute: item.cost?.perMinute ?? null, cost_total_1d: item.cost?.total1d ?? null,
      cost_total_7d: item.cost?.total7d ?? null, cost_total_30d: item.cost?.total30d ?? null,
      // an observed deletion keeps the first time it was seen; an item seen again without one is live again
      deleted_at: observedDeleted ? (s?.deleted_at ?? iso(item.deletedAt)) : null,
      delete_reason: observedDeleted ? (s?.deleted_at ? s.delete_reason : item.deleteReason ?? 'deleted') : null,
      created_at: iso(item.createdAt),
    };
  });
  const hashes = rows.map(fingerprint);
  // a stored row whose fingerprint is missing or differs (changed, or written by someone else since) is read whole
  const full = await storedRows(db, matches.flatMap((s, i) => (s && s.scrape_hash !== hashes[i] ? [s.id] : [])));

  const planned = items.map((item, i): PlannedItem => {
    const s = matches[i];
    const row = rows[i];
    const base = { item, row, hash: hashes[i], depth: depths[i] };
    if (!s) return { ...base, op: 'insert', diff: null, fingerprint: true };
    if (s.scrape_hash === hashes[i]) return { ...base, op: 'unchanged', diff: null, fingerprint: false };
    const stored = full.get(s.id);
    const diff = stored ? diffConfigs(normalise(stored.config ?? null), normalise(row.config)) : null;
    const op = !stored || diff || !sameColumns(row, stored) ? 'update' : 'unchanged';
    return { ...base, op, diff, fingerprint: true };
  });
  return { planned, idOf: (ref) => known.get(refKey(ref.type, ref.externalId))?.id, resolve };
}
