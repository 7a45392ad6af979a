import type pg from 'pg';

/**
 * The event queue's shared shapes (issue 15 "Events"). The queue is the reference's `event_queue` table; one consumer
 * per replica (server/modules/events/consumer.ts) claims due rows with FOR UPDATE SKIP LOCKED and runs every handler
 * registered for the row's name. Playbooks (on.canary…) and notifications (rules) both register handlers here.
 */

export type Q = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** An event_queue row as a consumer holds it. */
export interface QueuedEvent {
  id: string;
  name: string;
  event_id: string | null;
  properties: Record<string, unknown> | null;
  attempts: number;
  created_at: Date;
}

/**
 * Acts on one claimed row, inside the consumer's transaction (`client`). Throwing fails the attempt: the batch's
 * transaction is rolled back and its other rows run again in a new one, so a handler may run more than once for one
 * row and must be idempotent over that (and over retries of the row); side effects outside the database belong in
 * `tx.afterCommit` (the consumer always passes `tx`; a direct call, as in tests, may not).
 */
export type EventHandler = (event: QueuedEvent, client: pg.PoolClient, tx?: EventTx) => Promise<void>;

/** The consumer's transaction as a handler sees it. */
export interface EventTx {
  /** Runs `fn` once the transaction has committed (never when it rolls back). */
  afterCommit(fn: () => void): void;
}

/** `app.eventQueue`: handlers by event name, registered while plugins load (before onReady). */
export interface EventQueue {
  on(name: string, handler: EventHandler): void;
  /** Wakes this replica's consumer (a NOTIFY does this for rows written anywhere). */
  kick(): void;
  /** Consumes every due row now (tests, benchmarks); resolves with the count handled. */
  drain(): Promise<number>;
}

/** What enqueueEvent writes: an upsert on (name, event_id), as the reference's triggers do. */
export interface NewEvent {
  name: string;
  event_id: string;
  properties?: Record<string, unknown>;
  /** Not before this many milliseconds from now. */
  delay_ms?: number;
  priority?: number;
}

/** The kinds of things an event is about. */
export type ResourceKind = 'check' | 'canary' | 'component' | 'config' | 'incident' | 'playbook';

/** The resource of an event, as rules, silences, templates and the send history see it (loaded when it is handled). */
export interface EventResource {
  kind: ResourceKind;
  id: string;
  name: string;
  /** check type, config type, component type… */
  type?: string | null;
  /** healthy | unhealthy | warning | unknown (null when the kind has none) */
  health: string | null;
  status?: string | null;
  description?: string | null;
  labels?: Record<string, string>;
  tags?: Record<string, string>;
  /** The console page of the resource, a path (/health?checkId=…); senders prefix PUBLIC_URL. */
  permalink: string;
  /** The add-silence form prefilled for it (/notifications/silences/add?check_id=…), when the kind can be silenced. */
  silenceLink?: string;
  /** CEL filter and template variables: {check, canary} for checks, {incident} for incidents, {config}, {component}. */
  env: Record<string, unknown>;
  /** What silences match: the resource's own id under its kind, its canary, its ancestors (components by path). */
  silenceKeys: { check_id?: string; canary_id?: string; component_id?: string; config_id?: string; parents?: string[] };
}

/** A member of the event source registry (server/modules/events/sources/index.ts, one line per member). */
export interface EventSource {
  kind: ResourceKind;
  /** The full event names of the kind (check.failed, check.passed). */
  events: readonly string[];
  /** Variable names its env carries (declared to CEL when a rule's filter is compiled). */
  variables: readonly string[];
  /** The event's resource as it is now; null when it is gone. */
  load(db: Q, event: Pick<QueuedEvent, 'name' | 'event_id' | 'properties'>): Promise<EventResource | null>;
  /** Whether the resource still fits the event (wait_for: a check.failed whose check is healthy again does not). */
  stillMatches(resource: EventResource, eventName: string): boolean;
}
