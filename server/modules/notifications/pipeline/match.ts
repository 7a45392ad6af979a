import { createHash } from 'node:crypto';
import type pg from 'pg';
import { evalCel } from '../../../lib/cel.js';
import { NOTIFICATION_SEND_EVENT } from '../../../contracts/notifications.js';
import { enqueueEvent } from '../../events/queries.js';
import { sourceOfEvent } from '../../events/sources/index.js';
import type { EventHandler, QueuedEvent, Q } from '../../events/types.js';
import { liveRules, pauseRule, type RuleRow } from './queries.js';
import { expandRecipients, keyJson, type RecipientKey } from './recipients.js';
import type { ResourceMemo } from './resource-memo.js';

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
  private byId = new Map<string, RuleRow>();
  private indexes = new WeakMap<RuleRow[], RuleIndex>();
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

  /** A live rule by id from the cache (a send reads its rule without a query); undefined when not live (or unknown). */
  async live(id: string): Promise<RuleRow | undefined> {
    await this.rulesFor('');
    return this.byId.get(id);
  }

  /** The live rules of an event name, indexed by their equality filters (built once per load). */
  async indexFor(eventName: string): Promise<RuleIndex> {
    const rules = await this.rulesFor(eventName);
    let index = this.indexes.get(rules);
    if (!index) this.indexes.set(rules, (index = new RuleIndex(rules)));
    return index;
  }

  private async load(): Promise<Map<string, RuleRow[]>> {
    const map = new Map<string, RuleRow[]>();
    const byId = new Map<string, RuleRow>();
    for (const rule of await liveRules(this.db)) {
      byId.set(rule.id, rule);
      for (const name of rule.events ?? []) {
        const list = map.get(name);
        if (list) list.push(rule);
        else map.set(name, [rule]);
      }
    }
    this.byId = byId;
    this.loadedAt = Date.now();
    return map;
  }
}

/**
 * A filter of the form `<variable path> == "<text>"` (`check.labels.group == "payments"`, either side), the common
 * shape of rule filters: at 1,000 rules, evaluating every filter with CEL for every event costs more than the rest of
 * the pipeline. Such rules are indexed by path and text; an event looks its value up once per path. When the path
 * does not resolve to a string (a missing key, another type), the rule's CEL runs as before, so errors (and the pause
 * they cause) and CEL's own comparisons are unchanged.
 */
export interface EqualityFilter {
  path: string[];
  value: string;
}

const IDENT = '[A-Za-z_][A-Za-z0-9_]*';
const PATH = `(${IDENT}(?:\\.${IDENT})+)`;
const TEXT = `(?:"([^"\\\\\\n]*)"|'([^'\\\\\\n]*)')`;
const PATH_EQ_TEXT = new RegExp(`^\\s*${PATH}\\s*==\\s*${TEXT}\\s*$`);
const TEXT_EQ_PATH = new RegExp(`^\\s*${TEXT}\\s*==\\s*${PATH}\\s*$`);
const RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

export function equalityFilter(filter: string | null): EqualityFilter | null {
  if (!filter) return null;
  let m = PATH_EQ_TEXT.exec(filter);
  let path: string | undefined;
  let value: string | undefined;
  if (m) [path, value] = [m[1], m[2] ?? m[3]];
  else if ((m = TEXT_EQ_PATH.exec(filter))) [value, path] = [m[1] ?? m[2], m[3]];
  if (path === undefined || value === undefined) return null;
  const parts = path.split('.');
  if (parts.some((p) => RESERVED.has(p))) return null;
  return { path: parts, value };
}

/** The value at `path` in the variables when it is a plain string; undefined otherwise (CEL decides then). */
export function stringAt(env: Record<string, unknown>, path: string[]): string | undefined {
  let v: unknown = env;
  for (const p of path) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof Date) return undefined;
    if (!Object.prototype.hasOwnProperty.call(v, p)) return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return typeof v === 'string' ? v : undefined;
}

/** The rules of one event name, split into indexed equality filters and the rest. */
export class RuleIndex {
  /** Rules whose filter is not an equality (or empty): each is evaluated. */
  readonly others: RuleRow[] = [];
  /** path (dotted) → its path and text → the rules comparing it to that text. */
  readonly byPath = new Map<string, { path: string[]; byValue: Map<string, RuleRow[]>; all: RuleRow[] }>();

  constructor(rules: RuleRow[]) {
    for (const rule of rules) {
      const eq = equalityFilter(rule.filter);
      if (!eq) {
        this.others.push(rule);
        continue;
      }
      const key = eq.path.join('.');
      let g = this.byPath.get(key);
      if (!g) this.byPath.set(key, (g = { path: eq.path, byValue: new Map(), all: [] }));
      g.byValue.set(eq.value, [...(g.byValue.get(eq.value) ?? []), rule]);
      g.all.push(rule);
    }
  }

  /**
   * The rules that may match: `pass` whose equality holds (no CEL needed), `check` to evaluate with CEL (other
   * filters, and equality rules whose path is not a string in these variables).
   */
  candidates(env: Record<string, unknown>): { pass: RuleRow[]; check: RuleRow[] } {
    const pass: RuleRow[] = [];
    const check: RuleRow[] = [...this.others];
    for (const g of this.byPath.values()) {
      const v = stringAt(env, g.path);
      if (v === undefined) check.push(...g.all);
      else pass.push(...(g.byValue.get(v) ?? []));
    }
    return { pass, check };
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
export function matchHandler(rules: RuleCache, resources?: ResourceMemo): EventHandler {
  return async (event: QueuedEvent, client: pg.PoolClient) => {
    const index = await rules.indexFor(event.name);
    if (!index.others.length && !index.byPath.size) return;
    const source = sourceOfEvent(event.name);
    if (!source) return;
    const resource = await source.load(client, event);
    if (!resource) return;
    const { pass, check } = index.candidates(resource.env);
    const matched = pass.filter((r) => !isPaused(r));
    for (const rule of check) if (!isPaused(rule) && (await filterPasses(client, rule, resource.env))) matched.push(rule);
    // its sends (moments later, on this replica most often) use what was just read
    if (matched.length) resources?.set(event.name, event.event_id, resource);
    for (const rule of matched) {
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
