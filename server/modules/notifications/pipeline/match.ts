import { createHash } from 'node:crypto';
import type pg from 'pg';
import { evalCel } from '../../../lib/cel.js';
import { NOTIFICATION_SEND_EVENT } from '../../../contracts/notifications.js';
import { enqueueEvent } from '../../events/queries.js';
import { sourceOfEvent } from '../../events/sources/index.js';
import type { EventHandler, QueuedEvent, Q } from '../../events/types.js';
import { liveRules, pauseRule, type RuleRow } from './queries.js';
import { expandRecipients, keyJson, type RecipientKey } from './recipients.js';

/** A rule whose filter failed at run time is paused this long (issue 15). */
export const PAUSE_MS = 3_600_000;

/** The properties of a queued `notification.send`. */
export interface SendProperties extends Record<string, unknown> {
  notification_id: string;
  event_name: string;
  /** The source event's event_id and properties, to load the resource again when sent. */
  source_event_id: string | null;
  resource_id: string;
  resource_kind: string;
  recipient: RecipientKey;
  /** Set by the wait_for / digest sweeper: the held history rows this send finishes. */
  pending_ids?: string[];
}

/**
 * Live rules by event name, loaded once and dropped on a change of the notifications relation (the events bus, which
 * 0082's trigger feeds for every writer: API, CR reconciler, SQL) or after `ttlMs`.
 */
export class RuleCache {
  private byEvent: Map<string, RuleRow[]> | null = null;
  private loadedAt = 0;
  private loading: Promise<Map<string, RuleRow[]>> | null = null;

  constructor(private readonly db: Q, private readonly ttlMs: number) {}

  invalidate(): void {
    this.byEvent = null;
    this.loading = null;
  }

  async rulesFor(eventName: string): Promise<RuleRow[]> {
    if (!this.byEvent || Date.now() - this.loadedAt > this.ttlMs) {
      const loading = (this.loading ??= this.load());
      this.byEvent = await loading;
      if (this.loading === loading) this.loading = null;
    }
    return this.byEvent.get(eventName) ?? [];
  }

  private async load(): Promise<Map<string, RuleRow[]>> {
    const map = new Map<string, RuleRow[]>();
    for (const rule of await liveRules(this.db)) {
      for (const name of rule.events ?? []) map.set(name, [...(map.get(name) ?? []), rule]);
    }
    this.loadedAt = Date.now();
    return map;
  }
}

export function isPaused(rule: Pick<RuleRow, 'error_at'>, now = Date.now()): boolean {
  return !!rule.error_at && now - new Date(rule.error_at).getTime() < PAUSE_MS;
}

/** A deterministic uuid (v5 layout over sha1) of its parts: a retried event enqueues the same send rows. */
export function stableUuid(...parts: string[]): string {
  const h = createHash('sha1').update(parts.join('\u0000')).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * Whether a rule's filter lets the resource through; a filter that fails at run time pauses the rule (error, error_at)
 * and counts as no. An empty filter passes.
 */
export async function filterPasses(db: Q, rule: RuleRow, env: Record<string, unknown>): Promise<boolean> {
  if (!rule.filter?.trim()) return true;
  try {
    return evalCel(rule.filter, env) === true;
  } catch (err) {
    const message = `filter: ${err instanceof Error ? err.message : String(err)}`;
    await pauseRule(db, rule.id, message);
    rule.error = message;
    rule.error_at = new Date();
    return false;
  }
}

/** The handler of every source event: one `notification.send` per recipient of every matching live rule. */
export function matchHandler(rules: RuleCache): EventHandler {
  return async (event: QueuedEvent, client: pg.PoolClient) => {
    const matching = (await rules.rulesFor(event.name)).filter((r) => !isPaused(r));
    if (!matching.length) return;
    const source = sourceOfEvent(event.name);
    if (!source) return;
    const resource = await source.load(client, event);
    if (!resource) return;
    for (const rule of matching) {
      if (!(await filterPasses(client, rule, resource.env))) continue;
      for (const key of await expandRecipients(client, rule, resource.env)) {
        const properties: SendProperties = {
          ...(event.properties ?? {}),
          notification_id: rule.id,
          event_name: event.name,
          source_event_id: event.event_id,
          resource_id: resource.id,
          resource_kind: resource.kind,
          recipient: key,
        };
        await enqueueEvent(client, {
          name: NOTIFICATION_SEND_EVENT,
          event_id: stableUuid(rule.id, event.id, JSON.stringify(keyJson(key))),
          properties,
        });
      }
    }
  };
}
