import type pg from 'pg';
import type { z } from 'zod';
import { PUSH_KEYS, REFUSED_PUSH_KEYS, type PushKey, type PushResult } from '../../contracts/upstream.js';
import { ApiError, BadRequestError, ConflictError } from '../../lib/errors.js';
import { notifyChange } from '../../lib/events.js';
import { inTransaction } from '../../lib/tx.js';
import {
  deleteByParent, deleteOwned, foreignRows, ingestStatuses, parentOwners, receiveFrom, upsertRows,
} from './queries.js';
import { PUSH_TABLE_BY_KEY, PUSH_TABLES, type PushTable } from './tables.js';

/** Rows of a batch by key, validated and stripped to the table's columns. */
type Batch = Map<PushKey, Array<Record<string, unknown>>>;

/** The pushing agent. */
export interface PushAgent {
  id: string;
  name: string;
}

const REFUSED = new Set<string>(REFUSED_PUSH_KEYS);
const KNOWN = new Set<string>(PUSH_KEYS);

function pathOf(key: string, index: number, path: ReadonlyArray<PropertyKey>): string {
  return `${key}[${index}]${path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`;
}

/** The row's upsert key as text (rows of a batch with the same key: the last one wins). */
const keyOf = (t: PushTable, row: Record<string, unknown>) => t.conflict.map((c) => String(row[c] ?? null).toLowerCase()).join('|');

/**
 * Checks a PushData body row by row: 400 naming the first bad field (`checks[2].canary_id`) or a key this console
 * does not take rows for. Keys it does not know at all are ignored, as the reference ignores unknown JSON fields.
 */
export function validateBatch(body: unknown): Batch {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new BadRequestError('invalid json request', { body: 'expected a PushData object' });
  }
  const batch: Batch = new Map();
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (value === null || value === undefined) continue;
    if (REFUSED.has(key)) {
      if (Array.isArray(value) && value.length === 0) continue;
      throw new BadRequestError(`${key}: this console does not take pushed ${key} yet`, { [key]: 'not accepted' });
    }
    if (!KNOWN.has(key)) continue;
    const t = PUSH_TABLE_BY_KEY.get(key as PushKey)!;
    if (!Array.isArray(value)) throw new BadRequestError(`${key}: expected an array`, { [key]: 'expected an array' });
    const byKey = new Map<string, Record<string, unknown>>();
    value.forEach((raw, i) => {
      const r = t.row.safeParse(raw);
      if (!r.success) {
        const issue = r.error.issues[0];
        const at = pathOf(key, i, issue.path);
        throw new BadRequestError(`${at}: ${issue.message}`, { [at]: issue.message });
      }
      const parsed = r.data as Record<string, unknown>;
      const row: Record<string, unknown> = {};
      for (const col of Object.keys(t.columns)) if (parsed[col] !== undefined) row[col] = parsed[col];
      byKey.set(keyOf(t, row), row);
    });
    if (byKey.size) batch.set(t.key, [...byKey.values()]);
  }
  return batch;
}

/** The distinct values of a column (ids), nulls left out (an optional parent such as parent_id). */
const ids = (rows: Array<Record<string, unknown>>, col: string) =>
  [...new Set(rows.filter((r) => r[col] !== null && r[col] !== undefined).map((r) => String(r[col]).toLowerCase()))];

/**
 * A database refusal of a row that passed the checks above (a unique key other than the upsert key, e.g. two
 * components of one name under one parent, or a value PostgreSQL cannot take) as a client error naming the table.
 */
function refusalOf(err: unknown, key: string): ApiError | null {
  const e = err as { code?: string; detail?: string; message?: string; constraint?: string };
  if (typeof e?.code !== 'string') return null;
  const why = e.detail || e.message || 'refused';
  if (e.code === '23505') return new ConflictError(`${key}: ${why}`, { [key]: e.constraint ?? 'unique' });
  if (e.code === '23503') return new ApiError(422, 'unknown_parent', `${key}: ${why}`, { [key]: e.constraint ?? 'parent' });
  if (e.code.startsWith('22') || e.code === '23502' || e.code === '23514') return new BadRequestError(`${key}: ${why}`, { [key]: why });
  return null;
}

/** `table[i].column` of the first row whose column holds the id (its index among the batch's rows of that table). */
function rowNaming(t: PushTable, rows: Array<Record<string, unknown>>, column: string, id: string): string {
  const i = rows.findIndex((r) => r[column] !== null && r[column] !== undefined && String(r[column]).toLowerCase() === id);
  return i < 0 ? `${t.key}.${column}` : `${t.key}[${i}].${column}`;
}

/**
 * Refuses rows another agent (or the local console) owns (409), and rows whose parent is neither in the batch nor
 * already this agent's (422 listing the ids; 409 when the parent is someone else's).
 */
async function checkOwnership(c: pg.PoolClient, batch: Batch, agent: PushAgent, known: KnownParents): Promise<void> {
  for (const t of PUSH_TABLES) {
    const rows = batch.get(t.key);
    if (!rows) continue;
    if (t.owned && t.conflict.length === 1) {
      const foreign = await foreignRows(c, t, ids(rows, t.conflict[0]), agent.id);
      if (foreign.length) {
        const owner = foreign[0].agent ?? 'another agent';
        throw new ConflictError(
          `${t.key}: ${foreign.length} row(s) belong to ${owner === 'local' ? 'this console (local)' : `agent ${owner}`}, not ${agent.name}`,
          { [t.key]: foreign.slice(0, 20).map((f) => f.id) },
        );
      }
    }
    for (const p of t.parents) {
      const parent = PUSH_TABLE_BY_KEY.get(p.key)!;
      const inBatch = new Set(ids(batch.get(p.key) ?? [], parent.conflict[0]));
      const wanted = ids(rows, p.column).filter((id) => !inBatch.has(id) && !known.has(agent.id, p.key, id));
      if (!wanted.length) continue;
      const owners = await parentOwners(c, parent, wanted);
      const missing = wanted.filter((id) => !owners.has(id));
      const foreign = wanted.filter((id) => owners.has(id) && owners.get(id) !== agent.id);
      if (foreign.length) {
        const at = rowNaming(t, rows, p.column, foreign[0]);
        throw new ConflictError(`${at}: ${p.key} ${foreign.slice(0, 20).join(', ')} belong to another agent or this console`,
          { [at]: foreign.slice(0, 20) });
      }
      if (missing.length) {
        const at = rowNaming(t, rows, p.column, missing[0]);
        throw new ApiError(422, 'unknown_parent',
          `${at}: unknown ${p.key} ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? ` and ${missing.length - 20} more` : ''}`,
          { [at]: missing.slice(0, 100) });
      }
      known.add(agent.id, p.key, wanted);
    }
  }
}

/**
 * Parents already found to be an agent's (a check its results hang off, ...), so a steady stream of results skips
 * that lookup. Sound because a row never changes owner (agent_id is forced and a takeover is refused); a parent
 * removed since (DELETE push, which forgets the agent's entries) makes the insert's foreign key refuse the batch,
 * answered 422 as a lookup would. Bounded: past `max` entries it starts again.
 */
export class KnownParents {
  private readonly byAgent = new Map<string, Set<string>>();
  private size = 0;

  constructor(private readonly max = 200_000) {}

  has(agentId: string, key: string, id: string): boolean {
    return this.byAgent.get(agentId)?.has(`${key}:${id}`) ?? false;
  }

  add(agentId: string, key: string, ids: string[]): void {
    if (this.size + ids.length > this.max) this.clear();
    let set = this.byAgent.get(agentId);
    if (!set) this.byAgent.set(agentId, (set = new Set()));
    for (const id of ids) {
      const k = `${key}:${id}`;
      if (!set.has(k)) {
        set.add(k);
        this.size++;
      }
    }
  }

  forget(agentId: string): void {
    this.size -= this.byAgent.get(agentId)?.size ?? 0;
    this.byAgent.delete(agentId);
  }

  clear(): void {
    this.byAgent.clear();
    this.size = 0;
  }
}

/** Upstream push: stores or deletes an agent's batch in one transaction, nothing of it when any row is refused. */
export function createPushService(deps: { db: pg.Pool; onStored?: (agent: PushAgent, checks: string[]) => void }) {
  const { db } = deps;
  const known = new KnownParents();
  return {
    /** POST /api/upstream/push. */
    async push(agent: PushAgent, body: unknown): Promise<PushResult> {
      const batch = validateBatch(body);
      const counts: Record<string, number> = {};
      const resultChecks = new Set<string>();
      await inTransaction(db, async (c) => {
        const info = await receiveFrom(c, agent.id); // and last_received
        if (!info) throw new ApiError(401, 'unauthorized', 'agent not found or deleted');
        await checkOwnership(c, batch, agent, known);
        for (const t of PUSH_TABLES) {
          const rows = batch.get(t.key);
          if (!rows) continue;
          counts[t.key] = rows.length;
          try {
            if (t.ingest === 'check_statuses') {
              for (const id of await ingestStatuses(c, t, rows)) resultChecks.add(id);
            } else {
              await upsertRows(c, t, rows, agent.id, info.properties);
            }
          } catch (err) {
            throw refusalOf(err, t.key) ?? err;
          }
        }
        // live updates (delivered on commit): new canaries or checks reshape the health list, results refresh it
        if (batch.has('canaries') || batch.has('checks')) {
          await notifyChange(c, { relation: 'canaries', ids: ids(batch.get('canaries') ?? [], 'id') });
          await notifyChange(c, { relation: 'checks', ids: ids(batch.get('checks') ?? [], 'id') });
        }
        for (const key of ['config_items', 'components', 'topologies'] as const) {
          if (batch.has(key)) await notifyChange(c, { relation: key, ids: ids(batch.get(key)!, 'id').slice(0, 100) });
        }
      });
      if (resultChecks.size) deps.onStored?.(agent, [...resultChecks]);
      return { message: 'ok', counts };
    },

    /** DELETE /api/upstream/push: hard-deletes the listed rows that are this agent's (children first). */
    async remove(agent: PushAgent, body: unknown): Promise<PushResult> {
      const batch = validateKeys(body);
      const counts: Record<string, number> = {};
      known.forget(agent.id); // the listed parents may go
      await inTransaction(db, async (c) => {
        for (const t of [...PUSH_TABLES].reverse()) {
          const rows = batch.get(t.key);
          if (!rows) continue;
          try {
            counts[t.key] = t.owned
              ? await deleteOwned(c, t, ids(rows, t.conflict[0]), agent.id)
              : await deleteByParent(c, t, t.parents.map((p) => ({ column: p.column, table: PUSH_TABLE_BY_KEY.get(p.key)!.table })), rows, agent.id,
                (col) => keyNullable(t, col));
          } catch (err) {
            // rows still pointing at a listed one (a child item or component not listed): nothing is deleted
            if ((err as { code?: string }).code === '23503') {
              throw new ConflictError(`${t.key}: ${(err as { detail?: string }).detail ?? 'still referenced'}`, { [t.key]: 'still referenced' });
            }
            throw err;
          }
        }
        if (batch.has('canaries') || batch.has('checks')) {
          await notifyChange(c, { relation: 'canaries' });
          await notifyChange(c, { relation: 'checks' });
        }
        for (const key of ['config_items', 'components', 'topologies'] as const) {
          if (batch.has(key)) await notifyChange(c, { relation: key });
        }
      });
      return { message: 'ok', counts };
    },
  };
}

const shapeOf = (t: PushTable) => (t.row as unknown as { shape: Record<string, z.ZodType> }).shape;

/** Whether a key column may be null (scraper_id of a relationship, selector_id): compared null-safe when deleting. */
export const keyNullable = (t: PushTable, col: string) => shapeOf(t)[col]?.safeParse(null).success ?? false;

/** A DELETE body names rows by their keys only: the rest of each row is not checked. */
function validateKeys(body: unknown): Batch {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new BadRequestError('invalid json request', { body: 'expected a PushData object' });
  }
  const batch: Batch = new Map();
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (!KNOWN.has(key) || !Array.isArray(value) || !value.length) continue;
    const t = PUSH_TABLE_BY_KEY.get(key as PushKey)!;
    const rows = value.map((raw, i) => {
      const row = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const col of t.conflict) {
        const v = row[col];
        if (col === 'time' || t.columns[col] === 'uuid' && !keyNullable(t, col)) {
          const ok = col === 'time' ? typeof v === 'string' && !Number.isNaN(Date.parse(v)) : typeof v === 'string' && uuid.test(v);
          if (!ok) throw new BadRequestError(`${key}[${i}].${col}: required`, { [`${key}[${i}].${col}`]: 'required' });
          out[col] = v;
        } else {
          // a nullable part of a relationship's key (scraper_id, selector_id, relation) as the row contract reads it
          const r = shapeOf(t)[col].safeParse(v);
          if (!r.success) {
            const why = r.error.issues[0]?.message ?? 'invalid';
            throw new BadRequestError(`${key}[${i}].${col}: ${why}`, { [`${key}[${i}].${col}`]: why });
          }
          out[col] = r.data ?? null;
        }
      }
      return out;
    });
    batch.set(t.key, rows);
  }
  return batch;
}
