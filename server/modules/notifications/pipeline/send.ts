import type pg from 'pg';
import { sourceOfEvent } from '../../events/sources/index.js';
import type { EventHandler, EventResource, EventTx, Q, QueuedEvent } from '../../events/types.js';
import type { SilenceCache } from '../silences/cache.js';
import { findSilence } from '../silences/match.js';
import type { Recipient } from '../types.js';
import type { DeliveryHint, DeliveryPool } from './delivery.js';
import { digestWindow, holdFor, holdOf, RATE_LIMIT, RATE_WINDOW_MS } from './digest.js';
import { filterPasses, type RuleCache, type SendProperties } from './match.js';
import { bumpIdentical, digestMembers, finishHistory, insertHistory, insertSendingUnlessHeld, markSending, recentSent, ruleById, type HistoryInput, type RuleRow } from './queries.js';
import { quietHoursOf, holdUntil } from './quiet-hours.js';
import { keyJson, resolveRecipient } from './recipients.js';
import type { ResourceMemo } from './resource-memo.js';
import { intervalMs, nsToMs } from './repeat.js';

export interface SendOptions {
  /** Delivers committed `sending` rows off the consumer's path. */
  pool: DeliveryPool;
  /** How long a `sending` row is this replica's before any replica's sweeper re-takes it (ms). */
  leaseMs: number;
  /** Digest window when a grouping rule sets none (ms; issue 15: 1 min). */
  groupIntervalMs?: number;
  /** The live rules (a send reads its rule from here; a rule not live is read from the database). */
  rules?: RuleCache;
  /** The live silences (else each send reads them). */
  silences?: SilenceCache;
  /** Resources the match handler read moments before (else each send reads its resource). */
  resources?: ResourceMemo;
}

/** The rule of a send: live ones from the cache, others (deleted: the send is cancelled) from the database. */
export async function ruleOf(db: Q, id: string, rules?: RuleCache): Promise<RuleRow | null> {
  return (await rules?.live(id)) ?? ruleById(db, id);
}

/** NOTIFYs a change of the send history at commit: one payload per transaction (now()), so a batch sends one. */
const NOTIFY_HISTORY = `pg_notify('console_events', json_build_object('type', 'change', 'relation', 'notification_send_history',
  'at', now())::text)`;

type Outcome = Pick<HistoryInput, 'status' | 'error' | 'silenced_by' | 'parent_id' | 'body' | 'duration_millis' | 'not_before' | 'payload'>;

function resourceFields(r: EventResource | null): Pick<HistoryInput, 'resource_health' | 'resource_status' | 'resource_health_description' | 'resource_type'> {
  return {
    resource_health: r?.health ?? null, resource_status: r?.status ?? null, resource_health_description: r?.description ?? null,
    // undefined when unknown: an insert leaves it to the trigger, an update keeps it
    resource_type: r?.type ?? undefined,
  };
}

function recipientColumns(rec: Recipient, connectionId?: string | null): Pick<HistoryInput, 'person_id' | 'team_id' | 'connection_id' | 'recipient'> {
  return {
    person_id: rec.person_id ?? null,
    team_id: rec.team_id ?? null,
    connection_id: connectionId ?? null,
    recipient: Object.fromEntries(Object.entries(rec).filter(([, v]) => v !== undefined)),
  };
}

/** Loads the resource of a queued send as it is now (null: gone). */
async function loadResource(client: pg.PoolClient, p: SendProperties): Promise<EventResource | null> {
  const source = sourceOfEvent(p.event_name);
  if (!source) return null;
  return source.load(client, { name: p.event_name, event_id: p.source_event_id, properties: p });
}

/**
 * The `notification.send` handler (issue 15 "Rules"): gone → cancelled; silenced; repeat interval; wait_for, quiet
 * hours and digests hold the send (a `pending` row the sweeper releases); else a `sending` row (leased) that the
 * delivery pool renders, delivers and finishes once this transaction commits. A send released by the sweeper
 * (pending_ids) is checked again (gone, recovered, filter, silence) and its survivors become `sending` together.
 */
export function sendHandler(opts: SendOptions): EventHandler {
  return async (event: QueuedEvent, client: pg.PoolClient, tx?: EventTx) => {
    const p = event.properties as SendProperties | null;
    if (!p?.notification_id || !p.recipient) return;
    const rule = await ruleOf(client, p.notification_id, opts.rules);
    if (!rule) return;
    if (p.pending_ids?.length) {
      await release(client, rule, p, opts, tx);
      await client.query(`SELECT ${NOTIFY_HISTORY}`);
    } else if (!(await fresh(client, rule, p, opts, tx))) await client.query(`SELECT ${NOTIFY_HISTORY}`);
  };
}

/**
 * Hands committed `sending` rows to the pool: at the consumer's commit (in-process, nothing to poll), else once the
 * writing transaction (its txid) is seen committed.
 */
function handOver(opts: SendOptions, tx: EventTx | undefined, xid: string, ids: string[], hint?: DeliveryHint): void {
  if (!tx) {
    opts.pool.afterCommit(xid, ids, hint);
    return;
  }
  const writtenAt = Date.now();
  tx.afterCommit(() => opts.pool.committed(ids, hint, writtenAt, opts.leaseMs));
}

async function fresh(client: pg.PoolClient, rule: RuleRow, p: SendProperties, opts: SendOptions, tx?: EventTx): Promise<boolean> {
  const key = keyJson(p.recipient);
  const resource = opts.resources?.get(p.event_name, p.source_event_id) ?? await loadResource(client, p);
  const resolved = await resolveRecipient(client, rule, p.recipient);
  const base = {
    notification_id: rule.id, source_event: p.event_name, resource_id: p.resource_id, ...resourceFields(resource),
    ...recipientColumns(resolved.recipient, resolved.ok ? resolved.target.connectionId : null),
  };
  // true when the write also NOTIFYed the change (the sending row: its insert, transaction id and NOTIFY in one query)
  const record = async (o: Outcome): Promise<boolean> => {
    const row = { ...base, ...o };
    if (o.status === 'sending') {
      const { id, xid } = await insertHistory(client, row, { xid: true, also: NOTIFY_HISTORY });
      // what this handler read goes with the row: its delivery reads nothing again
      handOver(opts, tx, xid, [id], resource && resolved.ok
        ? { rule, resource, eventName: p.event_name, target: resolved.target } : undefined);
      return true;
    }
    if (o.status !== 'sent' && o.status !== 'error' && o.status !== 'pending' && (await bumpIdentical(client, row, key))) return false;
    if (o.status === 'pending' && (await bumpIdentical(client, row, key))) return false;
    await insertHistory(client, row);
    return false;
  };
  if (!resource) return record({ status: 'cancelled', error: 'the resource is gone' });
  if (rule.deleted_at) return record({ status: 'cancelled', error: 'the rule was deleted' });
  if (!resolved.ok && resolved.gone) return record({ status: 'cancelled', error: resolved.error });
  const silence = await findSilence(client, resource, new Date(), opts.silences);
  if (silence) return record({ status: 'silenced', silenced_by: silence.id });
  const repeatMs = intervalMs(rule.repeat_interval);
  if (repeatMs) {
    const parent = await recentSent(client, rule.id, resource.id, p.event_name, key, repeatMs);
    if (parent) return record({ status: 'repeat-interval', parent_id: parent });
  }
  const waitMs = nsToMs(rule.wait_for);
  const payload = { ...p } as Record<string, unknown>;
  if (waitMs) return record({ status: 'pending', not_before: new Date(Date.now() + waitMs), payload: { ...payload, waited: true } });
  const quietEnd = holdUntil(quietHoursOf(rule.quiet_hours), resource.env);
  if (quietEnd) return record({ status: 'pending', not_before: quietEnd, payload: { ...payload, digest: 'quiet-hours' } });
  const groupMs = opts.groupIntervalMs ?? 60_000;
  if (!resolved.ok) {
    const held = await holdFor(client, rule, key, groupMs);
    if (held) return record({ status: 'pending', not_before: held.notBefore, payload: { ...payload, digest: held.reason } });
    return record({ status: 'error', error: resolved.error });
  }
  // the digest facts and the `sending` row (unless they hold it back) in one statement
  const { grouping, windowMs } = digestWindow(rule, groupMs);
  const sending = { ...base, status: 'sending', not_before: new Date(Date.now() + opts.leaseMs), payload };
  const { state, row } = await insertSendingUnlessHeld(client, sending,
    { key, rateMs: RATE_WINDOW_MS, groupMs: windowMs, grouping, rateLimit: RATE_LIMIT }, NOTIFY_HISTORY);
  if (row) {
    handOver(opts, tx, row.xid, [row.id], { rule, resource, eventName: p.event_name, target: resolved.target });
    return true;
  }
  const held = holdOf(rule, state, groupMs);
  if (held) return record({ status: 'pending', not_before: held.notBefore, payload: { ...payload, digest: held.reason } });
  return record({ status: 'sending', not_before: new Date(Date.now() + opts.leaseMs), payload });
}

/** The consumer transaction's id: the pool delivers once it has committed. */
async function xid(client: pg.PoolClient): Promise<string> {
  const { rows } = await client.query<{ xid: string }>('SELECT txid_current()::text AS xid');
  return rows[0].xid;
}

/** A send the sweeper released: every held row it names is checked again; the survivors leave as one message. */
async function release(client: pg.PoolClient, rule: RuleRow, p: SendProperties, opts: SendOptions, tx?: EventTx): Promise<void> {
  const members = await digestMembers(client, p.pending_ids!);
  const survivors: { id: string; resource: EventResource; props: SendProperties }[] = [];
  for (const m of members) {
    const props = (m.payload ?? p) as SendProperties;
    const resource = await loadResource(client, props);
    const finish = (o: Outcome) => finishHistory(client, m.id, { ...resourceFields(resource), ...o });
    if (!resource) { await finish({ status: 'cancelled', error: 'the resource is gone' }); continue; }
    if (rule.deleted_at) { await finish({ status: 'cancelled', error: 'the rule was deleted' }); continue; }
    if (props.waited) {
      const source = sourceOfEvent(props.event_name);
      if (source && !source.stillMatches(resource, props.event_name)) {
        await finish({ status: 'cancelled', error: 'recovered before wait_for ended' });
        continue;
      }
      if (!(await filterPasses(client, rule, resource.env))) {
        await finish({ status: 'cancelled', error: 'no longer matches the filter' });
        continue;
      }
    }
    const silence = await findSilence(client, resource, new Date(), opts.silences);
    if (silence) { await finish({ status: 'silenced', silenced_by: silence.id }); continue; }
    survivors.push({ id: m.id, resource, props });
  }
  if (!survivors.length) return;
  const resolved = await resolveRecipient(client, rule, p.recipient);
  const cols = recipientColumns(resolved.recipient, resolved.ok ? resolved.target.connectionId : null);
  if (!resolved.ok) {
    const out: Outcome = { status: resolved.gone ? 'cancelled' : 'error', error: resolved.error };
    for (const s of survivors) await finishHistory(client, s.id, { ...cols, ...resourceFields(s.resource), ...out, not_before: null });
    return;
  }
  for (const s of survivors) await finishHistory(client, s.id, resourceFields(s.resource));
  const ids = survivors.map((s) => s.id);
  await markSending(client, ids, opts.leaseMs, cols);
  handOver(opts, tx, tx ? '' : await xid(client), ids);
}
