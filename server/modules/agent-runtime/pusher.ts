import type pg from 'pg';
import { inTransaction } from '../../lib/tx.js';
import {
  dropOldestStatuses, markPushed, OUTBOX_TABLES, outboxDepth, requeueParents, requeueRefs, unpushedByIds, unpushedRows,
  type OutboxRow, type OutboxTable, type RefTable,
} from './queries.js';
import type { RuntimeLog, RuntimeState } from './status.js';
import { briefBody, type UpstreamClient } from './upstream-client.js';

export interface PusherOptions {
  db: pg.Pool;
  client: UpstreamClient;
  state: RuntimeState;
  log: RuntimeLog;
  /** AGENT_PUSH_INTERVAL_MS */
  intervalMs: number;
  /** AGENT_BACKOFF_MAX_MS: failures wait 1 s, 2 s, 4 s … up to this. */
  backoffMaxMs: number;
  /** AGENT_BUFFER_MAX_ROWS */
  bufferMax: number;
  /** Rows per push (1,000). */
  batchRows?: number;
  /** Bytes of rows per push (2 MB). */
  batchBytes?: number;
}

export interface Batch {
  rows: OutboxRow[];
  /** Cut by the row or byte limit: more is waiting, push again at once. */
  full: boolean;
}

type Outcome = 'ok' | 'backoff' | 'again';

const BACKOFF_BASE_MS = 1000;

/** The PushData body of a batch: `{"canaries":[…],"checks":[…],…}` from the rows' JSON text as PostgreSQL wrote it. */
export function pushBody(rows: OutboxRow[]): string {
  const by = new Map<OutboxTable, string[]>();
  for (const r of rows) {
    const list = by.get(r.table) ?? [];
    list.push(r.json);
    by.set(r.table, list);
  }
  return `{${[...by].map(([t, list]) => `"${t}":[${list.join(',')}]`).join(',')}}`;
}

/** The row's key for a log line: its id (or check_id and time; a relationship's ids). */
function rowKey(r: OutboxRow): string {
  const j = JSON.parse(r.json) as Record<string, unknown>;
  if (r.table === 'check_statuses') return `${j.check_id}@${j.time}`;
  if (j.id) return String(j.id);
  const def = OUTBOX_TABLES.find((t) => t.table === r.table);
  if (def && 'refs' in def) return def.refs.map((ref) => j[ref.column]).filter(Boolean).join(',');
  return String(j.check_id);
}

/** What relationship rows of a batch point at, by table: put back in the outbox after a 422. */
function refsOf(rows: OutboxRow[]): Map<RefTable, Set<string>> {
  const out = new Map<RefTable, Set<string>>();
  for (const r of rows) {
    const def = OUTBOX_TABLES.find((t) => t.table === r.table);
    if (!def || !('refs' in def)) continue;
    const j = JSON.parse(r.json) as Record<string, unknown>;
    for (const ref of def.refs) {
      const id = j[ref.column];
      if (typeof id !== 'string') continue;
      let set = out.get(ref.table);
      if (!set) out.set(ref.table, (set = new Set()));
      set.add(id);
    }
  }
  return out;
}

/**
 * The outbox pusher: every `intervalMs`, unpushed rows in batches (parents first, statuses in time order) to
 * POST /api/upstream/push; the rows sent are marked pushed only on a 2xx. A full batch is followed by the next at
 * once, so a backlog drains at the upstream's pace. Failures back off 1 s → `backoffMaxMs`; a 401 is logged once
 * per streak. A batch refused with another 4xx is split in halves until the refused rows stand alone, and those are
 * skipped (logged, counted): one bad row never blocks the outbox. A 422 (unknown parent) first puts the parents of
 * the batch back in the outbox, once per cycle.
 */
export class Pusher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private failures = 0;
  private readonly batchRows: number;
  private readonly batchBytes: number;

  constructor(private readonly o: PusherOptions) {
    this.batchRows = o.batchRows ?? 1000;
    this.batchBytes = o.batchBytes ?? 2 * 1024 * 1024;
  }

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Runs a cycle now (tests, and the next cycle after a stop of the back-off is not needed). */
  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.cycle().then((next) => this.schedule(next));
    }, ms);
    this.timer.unref?.();
  }

  private backoffMs(): number {
    return Math.min(this.o.backoffMaxMs, BACKOFF_BASE_MS * 2 ** Math.min(16, this.failures - 1));
  }

  /** One cycle: bound the buffer, push until the outbox is empty or a push fails; answers the wait before the next. */
  async cycle(): Promise<number> {
    const { state } = this.o;
    let next = this.o.intervalMs;
    try {
      await this.bound();
      let repaired = false;
      for (let round = 0; !this.stopped && round < 10_000; round++) {
        const batch = await this.nextBatch();
        if (!batch.rows.length) break;
        const outcome = await this.send(batch.rows, !repaired);
        if (outcome === 'backoff') {
          this.failures++;
          next = this.backoffMs();
          break;
        }
        this.failures = 0;
        if (outcome === 'again') repaired = true;
        else if (!batch.full) break;
      }
      const depth = await outboxDepth(this.o.db);
      state.depth(depth.rows, depth.lagMs);
    } catch (err) {
      this.failures++;
      next = this.backoffMs();
      state.failed('push', (err as Error).message);
      this.o.log.warn({ err }, 'agent outbox: push cycle failed');
    }
    return next;
  }

  /** Over AGENT_BUFFER_MAX_ROWS unpushed rows: the oldest check statuses go (counted, logged). */
  private async bound(): Promise<void> {
    const depth = await outboxDepth(this.o.db);
    this.o.state.depth(depth.rows, depth.lagMs);
    const excess = depth.rows - this.o.bufferMax;
    if (excess <= 0) return;
    const dropped = await dropOldestStatuses(this.o.db, Math.min(excess, depth.statuses));
    if (!dropped) return;
    this.o.state.droppedRows.inc(dropped);
    this.o.state.status.droppedRows += dropped;
    this.o.log.warn({ dropped, bufferRows: depth.rows, max: this.o.bufferMax },
      'agent outbox over AGENT_BUFFER_MAX_ROWS: the oldest unpushed check statuses were dropped');
  }

  /** The next batch: tables in push order, up to the row and byte limits; stops at the first table it cuts. */
  async nextBatch(): Promise<Batch> {
    const rows: OutboxRow[] = [];
    let bytes = 0;
    for (const def of OUTBOX_TABLES) {
      const { table } = def;
      const left = this.batchRows - rows.length;
      const got = await unpushedRows(this.o.db, table, left);
      let cut = false;
      const taken: OutboxRow[] = [];
      for (const r of got) {
        if ((rows.length || taken.length) && bytes + r.json.length > this.batchBytes) {
          cut = true;
          break;
        }
        taken.push(r);
        bytes += r.json.length + 1;
      }
      // a self-referencing table: the rows' unpushed ancestors go along (they may exceed the row limit a little)
      if (def.parent?.table === table && taken.length) await this.withAncestors(table, taken);
      rows.push(...taken);
      if (cut) return { rows, full: true };
      if (rows.length >= this.batchRows) return { rows, full: true };
    }
    return { rows, full: false };
  }

  /** Adds the unpushed parents (parent_id) of rows of a self-referencing table, level by level (at most 50). */
  private async withAncestors(table: OutboxTable, rows: OutboxRow[]): Promise<void> {
    const have = new Set(rows.map((r) => (JSON.parse(r.json) as { id: string }).id));
    let wanted = [...new Set(rows.map((r) => r.parent).filter((p): p is string => !!p && !have.has(p)))];
    for (let depth = 0; wanted.length && depth < 50; depth++) {
      const found = await unpushedByIds(this.o.db, table, wanted);
      const next: string[] = [];
      for (const r of found) {
        const id = (JSON.parse(r.json) as { id: string }).id;
        if (have.has(id)) continue;
        have.add(id);
        rows.unshift(r);
        if (r.parent && !have.has(r.parent)) next.push(r.parent);
      }
      wanted = [...new Set(next)];
    }
  }

  private async post(rows: OutboxRow[]) {
    try {
      return await this.o.client.request('POST', '/push', { body: pushBody(rows) });
    } catch (err) {
      this.o.state.failed('push', (err as Error).message);
      return null;
    }
  }

  /** Sends rows; on another 4xx, repairs parents (422, once) or splits. */
  private async send(rows: OutboxRow[], mayRepair: boolean): Promise<Outcome> {
    const answer = await this.post(rows);
    if (!answer) return 'backoff';
    if (answer.ok) {
      await this.mark(rows);
      return 'ok';
    }
    if (answer.status === 401) {
      this.o.state.tokenRejected('push');
      return 'backoff';
    }
    if (answer.status === 408 || answer.status === 429 || answer.status >= 500 || answer.status < 400) {
      this.o.state.failed('push', `${answer.status} ${briefBody(answer.text)}`);
      return 'backoff';
    }
    this.o.state.accepted(); // the token was good
    if (answer.status === 422 && mayRepair) {
      this.o.log.warn({ status: 422, answer: briefBody(answer.text) }, 'agent outbox: upstream lacks parents of the batch; sending them again');
      const checkIds = rows.filter((r) => r.table === 'check_statuses' || r.table === 'checks_unlogged').map((r) => r.parent!);
      const canaryIds = rows.filter((r) => r.table === 'checks').map((r) => r.parent!);
      await requeueParents(this.o.db, [...new Set(checkIds)], [...new Set(canaryIds)]);
      for (const [table, set] of refsOf(rows)) await requeueRefs(this.o.db, table, [...set]);
      return 'again';
    }
    return this.split(rows, answer.status, answer.text);
  }

  /** A refused batch in halves until each refused row stands alone; those are skipped. */
  private async split(rows: OutboxRow[], status: number, text: string): Promise<Outcome> {
    if (rows.length === 1) {
      const r = rows[0];
      await markPushed(this.o.db, r.table, [r]);
      this.o.state.skippedRows.inc();
      this.o.state.status.skippedRows++;
      this.o.state.failed('push', `${status} ${briefBody(text)}`);
      this.o.log.error({ table: r.table, row: rowKey(r), status, answer: briefBody(text) },
        'agent outbox: the upstream refused this row; skipped (it is not sent again unless it changes)');
      return 'again';
    }
    const mid = Math.ceil(rows.length / 2);
    for (const half of [rows.slice(0, mid), rows.slice(mid)]) {
      const answer = await this.post(half);
      if (!answer) return 'backoff';
      if (answer.ok) {
        await this.mark(half);
        continue;
      }
      if (answer.status === 401) {
        this.o.state.tokenRejected('push');
        return 'backoff';
      }
      if (answer.status === 408 || answer.status === 429 || answer.status >= 500 || answer.status < 400) return 'backoff';
      const out = await this.split(half, answer.status, answer.text);
      if (out === 'backoff') return out;
    }
    return 'again';
  }

  private async mark(rows: OutboxRow[]): Promise<void> {
    await inTransaction(this.o.db, async (c) => {
      for (const { table } of OUTBOX_TABLES) await markPushed(c, table, rows.filter((r) => r.table === table));
    });
    const { state } = this.o;
    state.accepted();
    state.pushedRows.inc(rows.length);
    state.status.pushedRows += rows.length;
    state.status.lastPushRows = rows.length;
    state.status.lastPushAt = new Date().toISOString();
  }
}
