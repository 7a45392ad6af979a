import type pg from 'pg';
import { notifyChange } from '../../../lib/events.js';
import { sourceOfEvent } from '../../events/sources/index.js';
import type { EventResource, Q } from '../../events/types.js';
import { renderNotification } from '../render/index.js';
import { channelOf, deliver } from '../senders/index.js';
import type { DeliveryResult } from '../types.js';
import type { SendProperties } from './match.js';
import { finishMany, finishSending, ruleById, sendingRows, type RuleRow } from './queries.js';
import { resolveRecipient } from './recipients.js';

/**
 * Deliveries off the consumer's path (issue 15 "Rules"): the send handler commits `sending` rows (leased through
 * not_before) in the consumer's transaction and hands their ids here; the pool waits for that transaction to commit,
 * then renders and delivers outside any transaction, a bounded number at a time, and finishes the rows (sent / error).
 * A replica that dies mid-delivery leaves its rows `sending`; the pipeline's sweeper on any replica re-takes them once
 * the lease has expired (at least once: a send delivered but not yet recorded goes again).
 */

export interface DeliverOptions {
  publicUrl: string;
  /** Passed to deliver() (tests: fewer attempts, shorter backoff). */
  deliver?: { attempts?: number; backoffMs?: number; timeoutMs?: number };
}

/** Renders (a digest when there are several resources) and delivers; the outcome of the send. */
export async function renderAndDeliver(rule: RuleRow, target: Parameters<typeof deliver>[0], resource: EventResource,
  group: EventResource[], eventName: string, opts: DeliverOptions):
  Promise<{ status: 'sent' | 'error'; error: string | null; body: string | null; duration_millis: number }> {
  let body: string | null = null;
  let result: DeliveryResult;
  const started = Date.now();
  try {
    const message = renderNotification({
      eventName, resource, rule: { title: rule.title, template: rule.template, properties: rule.properties },
      channel: channelOf(target.url), publicUrl: opts.publicUrl, group: group.length > 1 ? group : undefined,
    });
    body = message.markdown;
    result = await deliver(target, message, opts.deliver);
  } catch (err) {
    result = { ok: false, channel: '', error: err instanceof Error ? err.message : String(err), durationMs: Date.now() - started, attempts: 1 };
  }
  return { status: result.ok ? 'sent' : 'error', error: result.ok ? null : (result.error ?? 'failed'), body, duration_millis: Math.round(result.durationMs) };
}

async function loadResource(db: Q, p: SendProperties): Promise<EventResource | null> {
  const source = sourceOfEvent(p.event_name);
  return source ? source.load(db, { name: p.event_name, event_id: p.source_event_id, properties: p }) : null;
}

/**
 * What the send handler already read for a fresh send (its rule, its resource as loaded in the handler's transaction
 * moments before, where it goes): the delivery of that row needs no query before the call. A re-taken row (another
 * replica's, or after a restart) has none and reads everything again.
 */
export interface DeliveryHint {
  rule: RuleRow;
  resource: EventResource;
  eventName: string;
  target: Parameters<typeof deliver>[0];
}

const NOTIFY_HISTORY = `pg_notify('console_events', json_build_object('type', 'change',
    'relation', 'notification_send_history', 'at', now())::text)`;

type FinishOutcome = Parameters<typeof finishSending>[2];

/**
 * Outcomes of deliveries written together (issue 15 "Performance": one UPDATE and one NOTIFY per flush, not per send):
 * a delivery's outcome waits at most `windowMs` (or until `max` rows are waiting) and its promise resolves once it is
 * written. A replica that dies before the flush leaves the rows `sending`; another re-takes them after the lease (at
 * least once, as a death between the call and any write).
 */
export class FinishBatcher {
  private waiting: { ids: string[]; out: FinishOutcome; done: () => void; fail: (e: unknown) => void }[] = [];
  private rows = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly db: Q, private readonly windowMs = 10, private readonly max = 100) {}

  finish(ids: string[], out: FinishOutcome): Promise<void> {
    return new Promise<void>((done, fail) => {
      this.waiting.push({ ids, out, done, fail });
      this.rows += ids.length;
      if (this.rows >= this.max) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), this.windowMs);
    });
  }

  /** Writes what is waiting now. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.waiting;
    this.waiting = [];
    this.rows = 0;
    if (!batch.length) return;
    try {
      await finishMany(this.db, batch.flatMap((b) => b.ids.map((id) => ({ id, ...b.out }))), NOTIFY_HISTORY);
      for (const b of batch) b.done();
    } catch (err) {
      for (const b of batch) b.fail(err);
    }
  }
}

/** Delivers one send (its `sending` rows: one, or the members of a digest) and finishes them. */
export async function deliverRows(db: pg.Pool, ids: string[], opts: DeliverOptions, hint?: DeliveryHint,
  finisher: Pick<FinishBatcher, 'finish'> = new FinishBatcher(db, 0, 1)): Promise<void> {
  const finish = (_db: Q, rowIds: string[], out: FinishOutcome) => finisher.finish(rowIds, out);
  if (hint && ids.length === 1) {
    // a fresh send of this replica, committed `sending` under this replica's lease: finish guards on the status
    const out = await renderAndDeliver(hint.rule, hint.target, hint.resource, [hint.resource], hint.eventName, opts);
    await finish(db, ids, out);
    return;
  }
  const rows = await sendingRows(db, ids);
  if (!rows.length) return;
  const rule = await ruleById(db, rows[0].notification_id);
  const members: { id: string; resource: EventResource; props: SendProperties }[] = [];
  for (const r of rows) {
    const props = r.payload as SendProperties;
    const resource = props?.event_name ? await loadResource(db, props) : null;
    if (!resource || !rule) await finishSending(db, [r.id], { status: 'cancelled', error: rule ? 'the resource is gone' : 'the rule is gone' });
    else members.push({ id: r.id, resource, props });
  }
  if (members.length && rule) {
    const first = members[0];
    const resolved = await resolveRecipient(db, rule, first.props.recipient);
    const out = resolved.ok
      ? await renderAndDeliver(rule, resolved.target, first.resource, members.map((m) => m.resource), first.props.event_name, opts)
      : { status: resolved.gone ? 'cancelled' : 'error', error: resolved.error };
    await finish(db, members.map((m) => m.id), out);
  } else await notifyChange(db, { relation: 'notification_send_history' });
}

export interface PoolOptions {
  /** Deliveries running at once on this replica (the senders' per-host limit keeps a hanging host to its slots). */
  concurrency?: number;
  /** How often transactions awaited are checked for their commit (ms). */
  commitPollMs?: number;
  /** Every this many ms the pool renews the lease of every row it holds (queued or delivering); 0: never. */
  renewMs?: number;
  renew?: (ids: string[]) => Promise<void>;
}

/** The in-process delivery pool of one replica. */
export class DeliveryPool {
  private readonly queue: string[][] = [];
  private readonly awaiting = new Map<string, string[][]>();
  /** What the writer already read for a job (by the job's ids array); dropped with the job. */
  private readonly hints = new WeakMap<string[], DeliveryHint>();

  private readonly running = new Set<Promise<void>>();
  private readonly held = new Map<Promise<void>, string[]>();
  private renewTimer: NodeJS.Timeout | null = null;
  private poll: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly concurrency: number;
  private readonly commitPollMs: number;
  private readonly renew?: (ids: string[]) => Promise<void>;

  constructor(private readonly db: pg.Pool, private readonly run: (ids: string[], hint?: DeliveryHint) => Promise<void>,
    private readonly onError: (err: unknown) => void, opts: PoolOptions = {}) {
    this.concurrency = opts.concurrency ?? 32;
    this.commitPollMs = opts.commitPollMs ?? 5;
    const renew = opts.renew;
    this.renew = renew;
    if (renew && opts.renewMs) {
      this.renewTimer = setInterval(() => {
        // rows waiting for their transaction's commit too: once committed, they are ours until delivered
        const ids = [...this.queue.flat(), ...[...this.held.values()].flat(), ...[...this.awaiting.values()].flat(2)];
        if (ids.length) renew(ids).catch(this.onError);
      }, opts.renewMs);
      this.renewTimer.unref();
    }
  }

  /** Delivers `ids` once transaction `xid` (txid_current() of the writer) has committed; nothing when it aborts. */
  afterCommit(xid: string, ids: string[], hint?: DeliveryHint): void {
    if (this.closed) return;
    if (hint) this.hints.set(ids, hint);
    const jobs = this.awaiting.get(xid);
    if (jobs) jobs.push(ids);
    else this.awaiting.set(xid, [ids]);
    this.schedulePoll();
  }

  /**
   * Delivers `ids` whose writing transaction has just committed (the event consumer's after-commit callback: no
   * polling for the commit). `writtenAt`: when their lease began; a batch slow to commit renews it first.
   */
  committed(ids: string[], hint: DeliveryHint | undefined, writtenAt: number, leaseMs: number): void {
    if (this.closed) return;
    if (hint) this.hints.set(ids, hint);
    if (this.renew && Date.now() - writtenAt > leaseMs / 3) {
      const renew = this.renew;
      void renew(ids).catch(this.onError).finally(() => this.submit(ids));
      return;
    }
    this.submit(ids);
  }

  /** Delivers `ids` (rows already committed `sending`). */
  submit(ids: string[]): void {
    if (this.closed) return;
    this.queue.push(ids);
    this.pump();
  }

  /** Deliveries waiting or running. */
  get size(): number {
    return this.queue.length + this.running.size + [...this.awaiting.values()].reduce((n, l) => n + l.length, 0);
  }

  /** Stops taking work; waits up to graceMs for the deliveries running. What is left stays `sending` for the sweeper. */
  async close(graceMs: number): Promise<void> {
    this.closed = true;
    if (this.poll) clearTimeout(this.poll);
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.queue.length = 0;
    this.awaiting.clear();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((r) => { timer = setTimeout(r, graceMs); });
    await Promise.race([Promise.allSettled([...this.running]), grace]);
    clearTimeout(timer);
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.concurrency && this.queue.length) {
      const ids = this.queue.shift()!;
      const p: Promise<void> = this.run(ids, this.hints.get(ids)).catch(this.onError).finally(() => {
        this.running.delete(p);
        this.held.delete(p);
        this.pump();
      });
      this.running.add(p);
      this.held.set(p, ids);
    }
  }

  private schedulePoll(): void {
    if (this.poll || this.closed) return;
    this.poll = setTimeout(() => void this.checkCommits(), this.commitPollMs);
  }

  private async checkCommits(): Promise<void> {
    const xids = [...this.awaiting.keys()];
    try {
      const { rows } = await this.db.query<{ xid: string; status: string | null }>(
        'SELECT x AS xid, txid_status(x::bigint) AS status FROM unnest($1::text[]) x', [xids]);
      for (const r of rows) {
        if (r.status === 'in progress') continue;
        const jobs = this.awaiting.get(r.xid) ?? [];
        this.awaiting.delete(r.xid);
        // committed (or too old to know: the rows' own status decides); aborted: the rows never existed
        if (r.status === 'aborted') continue;
        // the lease began when the handler wrote the row; a slow batch may have used it up before the commit
        if (this.renew) await this.renew(jobs.flat()).catch(this.onError);
        for (const ids of jobs) this.submit(ids);
      }
    } catch (err) {
      this.onError(err);
    }
    this.poll = null;
    if (this.awaiting.size) this.schedulePoll();
  }
}
