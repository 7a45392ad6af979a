import type pg from 'pg';
import { publishChange } from '../../../lib/events.js';
import { inTransaction } from '../../../lib/tx.js';
import type { ItemRef, ScrapeResult, ScrapeSummary } from '../types.js';
import { planItems } from './plan.js';
import {
  deleteUnreportedRelationships, liveRelationships, resolveAnalysis, upsertAnalysis, upsertRelationships, type AnalysisWrite,
} from './link-queries.js';
import {
  deleteMissingItems, insertItems, markDeleted, replaceLocations, touchLastScraped, updateItems, upsertChanges,
  writeScrapeHashes, type ChangeWrite,
} from './queries.js';

export interface SaveOptions {
  /** Items a complete run did not return are deleted once not scraped for this long (spec `retention.staleItemAge`). */
  staleItemAgeMs?: number;
  /** The time the save stamps (last_scraped_time, deletions, diffs); tests move it. */
  now?: Date;
  /**
   * When the extraction began: an item saved since (by the live watcher, while this run listed its source) is not
   * "missing" from this result, only newer than it.
   */
  startedAt?: Date;
}

export const DEFAULT_STALE_ITEM_AGE_MS = 24 * 3_600_000;
/** Rows per statement and per transaction: 10,000 Kubernetes objects save in ten transactions of one statement each. */
const BATCH = 1_000;

type Counts = ScrapeSummary['config_types'][string];

function chunks<T>(rows: T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/**
 * Saves what one run of a scraper found: items inserted, rewritten only when something differs (a changed config also
 * adds one `diff` change), every returned item's last_scraped_time touched; the extractor's changes, insights and
 * relationships upserted; and, after a complete run without errors, what the source no longer has deleted (items at
 * once with `deleteMissing`, else once stale; relationships at once; insights of analysed types resolved). A partial
 * result (the live watcher's single object) only adds and updates. Writes go in transactions of BATCH rows; each
 * touched table is announced once on the live-update bus. Answers the counts per config type.
 */
export function saveResult(db: pg.Pool, scraperId: string, result: ScrapeResult, opts: SaveOptions = {}): Promise<ScrapeSummary> {
  // saves of one scraper (a scheduled run and the live watcher's objects) go one after the other: two at once could
  // both find an item new and insert it twice
  const before = saving.get(scraperId) ?? Promise.resolve();
  const mine = before.catch(() => undefined).then(() => save(db, scraperId, result, opts));
  const tail = mine.catch(() => undefined);
  saving.set(scraperId, tail);
  void tail.then(() => {
    if (saving.get(scraperId) === tail) saving.delete(scraperId);
  });
  return mine;
}

const saving = new Map<string, Promise<unknown>>();

async function save(db: pg.Pool, scraperId: string, result: ScrapeResult, opts: SaveOptions): Promise<ScrapeSummary> {
  const now = opts.now ?? new Date();
  const at = now.toISOString();
  // a run with errors (a bad item, an unreadable file) is partial whatever the extractor says: what it missed may exist
  const complete = result.complete && result.errors.length === 0;
  const types: Record<string, Counts> = {};
  const count = (type: string) => (types[type] ??= { added: 0, updated: 0, unchanged: 0, changes: 0 });
  const touched = new Set<string>();

  // ---- items ----
  const { planned, idOf, resolve } = await planItems(db, scraperId, result.items);
  const typeOfId = new Map(planned.map((p) => [p.row.id, p.item.type]));
  const ordered = [
    ...planned.filter((p) => p.op === 'insert').sort((a, b) => a.depth - b.depth),
    ...planned.filter((p) => p.op === 'update'),
    ...planned.filter((p) => p.op === 'unchanged'),
  ];
  for (const batch of chunks(ordered)) {
    const diffs: ChangeWrite[] = batch.filter((p) => p.diff).map((p) => ({
      config_id: p.row.id, external_change_id: null, change_type: 'diff', severity: 'info', source: 'diff',
      summary: p.diff!.summary, patches: p.diff!.patches, diff: p.diff!.diff, details: null, created_at: at,
      first_observed: at, count: null, external_created_by: null,
    }));
    const located = batch.filter((p) => p.item.locations);
    await inTransaction(db, async (c) => {
      await insertItems(c, scraperId, batch.filter((p) => p.op === 'insert').map((p) => p.row));
      await updateItems(c, batch.filter((p) => p.op === 'update').map((p) => p.row));
      await upsertChanges(c, diffs);
      await touchLastScraped(c, batch.map((p) => p.row.id), now);
      // after the item writes, so each fingerprint holds for the row version this transaction leaves
      const printed = batch.filter((p) => p.fingerprint);
      await writeScrapeHashes(c, printed.map((p) => p.row.id), printed.map((p) => p.hash));
      if (located.length) {
        const pairs = located.flatMap((p) => p.item.locations!.map((l) => [p.row.id, l] as const));
        await replaceLocations(c, located.map((p) => p.row.id), pairs.map((x) => x[0]), pairs.map((x) => x[1]));
      }
    });
    for (const p of batch) {
      const t = count(p.item.type);
      if (p.op === 'insert') t.added++;
      else if (p.op === 'update') t.updated++;
      else t.unchanged++;
      if (p.diff) t.changes++;
    }
    if (batch.some((p) => p.op !== 'unchanged')) touched.add('config_items');
    if (diffs.length) touched.add('config_changes');
  }

  // refs of changes, insights and relationships to items this result does not carry
  await resolve([
    ...result.changes.map((c) => c.item), ...result.analysis.map((a) => a.item),
    ...result.relationships.flatMap((r) => [r.from, r.to]),
  ]);
  // a change, insight or link to an item found nowhere is dropped (the item may come with a later run)
  const idFor = (ref: ItemRef) => idOf(ref);

  // ---- changes the source reported ----
  const byChangeKey = new Map<string, ChangeWrite>();
  const deletions = new Map<string, string[]>();
  const typeOfChanged = new Map<string, string>();
  let plain = 0;
  for (const ch of result.changes) {
    if (ch.action === 'ignore') continue;
    const configId = idFor(ch.item);
    if (!configId) continue;
    const created = (ch.createdAt ?? now).toISOString();
    const row: ChangeWrite = {
      config_id: configId, external_change_id: ch.externalChangeId ?? null, change_type: ch.changeType,
      severity: ch.severity ?? null, source: ch.source ?? null, summary: ch.summary ?? null, patches: null, diff: null,
      details: ch.details ?? null, created_at: created, first_observed: ch.firstObserved?.toISOString() ?? null,
      count: ch.count ?? null, external_created_by: ch.externalCreatedBy ?? null,
    };
    // one statement may not upsert a row twice: a repeat within the result counts as a repeat
    const key = ch.externalChangeId ? `${configId}\u0000${ch.externalChangeId}` : `#${plain++}`;
    const prev = byChangeKey.get(key);
    if (prev && row.count === null) row.count = (prev.count ?? 1) + 1;
    byChangeKey.set(key, row);
    if (ch.action === 'delete') deletions.set(ch.changeType, [...(deletions.get(ch.changeType) ?? []), configId]);
    typeOfChanged.set(configId, typeOfId.get(configId) ?? ch.item.type);
  }
  for (const batch of chunks([...byChangeKey.values()])) {
    // a change seen again as it was (the same Event at the same count) is neither written nor counted
    const written = await inTransaction(db, (c) => upsertChanges(c, batch));
    for (const id of written) count(typeOfChanged.get(id)!).changes++;
    if (written.length) touched.add('config_changes');
  }
  // a `delete` mapping: the change is kept and its item deleted, the change type as the reason
  for (const [reason, ids] of deletions) {
    if (await markDeleted(db, ids, now, reason)) touched.add('config_items');
  }

  // ---- insights ----
  const byAnalyzer = new Map<string, AnalysisWrite>();
  for (const a of result.analysis) {
    const configId = idFor(a.item);
    if (!configId) continue;
    byAnalyzer.set(`${configId}\u0000${a.analyzer}`, {
      config_id: configId, analyzer: a.analyzer, analysis_type: a.analysisType, severity: a.severity,
      summary: a.summary ?? null, message: a.message ?? null, analysis: a.analysis ?? null, source: a.source ?? null,
    });
  }
  const reported = [...byAnalyzer.values()];
  for (const batch of chunks(reported)) {
    await inTransaction(db, (c) => upsertAnalysis(c, scraperId, batch, now));
    touched.add('config_analysis');
  }
  if (result.analyzedTypes?.length) {
    // complete: every item of those types was analysed; partial: only the items this result carries
    const scope = complete ? null : planned.map((p) => p.row.id);
    if (await resolveAnalysis(db, scraperId, result.analyzedTypes, scope, reported)) touched.add('config_analysis');
  }

  // ---- relationships ----
  const rels = result.relationships.flatMap((r) => {
    const from = idFor(r.from);
    const to = idFor(r.to);
    return from && to && from !== to ? [{ from, to, relation: r.relation }] : [];
  });
  const relKey = (r: { from: string; to: string; relation: string }) => `${r.from} ${r.to} ${r.relation}`;
  const live = await liveRelationships(db, scraperId, complete ? null : [...new Set(rels.map((r) => r.from))]);
  for (const batch of chunks(rels.filter((r) => !live.has(relKey(r))))) {
    const n = await upsertRelationships(db, scraperId, batch.map((r) => r.from), batch.map((r) => r.to), batch.map((r) => r.relation));
    if (n) touched.add('config_relationships');
  }
  if (complete) {
    // every live link reported again: nothing to delete, and no statement to find that out
    const reported = new Set(rels.map(relKey));
    if ([...live].some((k) => !reported.has(k))) {
      const n = await deleteUnreportedRelationships(db, scraperId, rels.map((r) => r.from), rels.map((r) => r.to), rels.map((r) => r.relation), now);
      if (n) touched.add('config_relationships');
    }

    // ---- items the source no longer has ----
    const gone = await deleteMissingItems(db, scraperId, planned.map((p) => p.row.id), now, {
      immediately: result.deleteMissing === true, staleMs: opts.staleItemAgeMs ?? DEFAULT_STALE_ITEM_AGE_MS,
      keepScrapedSince: opts.startedAt ?? now,
    });
    for (const g of gone) {
      const t = count(g.type);
      t.deleted = (t.deleted ?? 0) + 1;
    }
    if (gone.length) touched.add('config_items');
  }

  // one event per table per save, however many rows
  for (const relation of touched) await publishChange(db, { relation });
  return { config_types: types };
}
