import type { QueryClient, QueryKey } from '@tanstack/react-query';
import type { LiveClientMessage, LiveLogLine, LiveMessage } from '@contracts/events';

// The message contract (zod) loads with the first socket rather than with the start-up bundle.
type Contract = typeof import('@contracts/events');
let contract: Promise<Contract> | null = null;
const loadContract = () =>
  (contract ??= import('@contracts/events').catch((err: unknown) => {
    contract = null; // a failed download is tried again with the next message
    throw err;
  }));

/** events.ts's WS_CLOSE_SESSION_ENDED, repeated so closing needs no contract; the type keeps the two equal. */
const WS_CLOSE_SESSION_ENDED: Contract['WS_CLOSE_SESSION_ENDED'] = 4401;

/*
 * The live socket, loaded by useLiveUpdates (live-updates.ts) after the first render: nothing on the first screen
 * needs it, so it stays out of the start-up bundle.
 *
 * Live updates: one WebSocket per tab (`/api/ws`), whose events invalidate TanStack Query caches instead of polling.
 *
 * Query-key convention (every feature's key factory follows it, so this file needs no feature imports):
 * - a read of an /api/db relation lives under `['db', <relation>, ...]`, e.g. `teamKeys.all = ['db', 'teams']`;
 * - everything about the signed-in user and user administration (whoami, users, tokens) lives under `['auth', ...]`;
 * - anything else lives under `[<feature>, ...]` and refreshes on `resync` only (or when its feature adds a rule below).
 *
 * Server messages (contract in server/contracts/events.ts):
 * - `{type: 'change', relation, ids?, at}` invalidates `['db', relation]`, the views over it and the relations that
 *   show it (RELATED), and `['auth']` for relations that feed whoami or the user screens (AUTH_RELATIONS);
 * - `{type: 'resync'}` (the server dropped events for us), and any reconnect after a drop, invalidate everything;
 * - `{type: 'ready'}` says the subscription is live.
 * Only active queries refetch at once; the rest are marked stale and refetch when next shown.
 *
 * Run logs (issue 14 "Live"): a page watching a playbook run's output calls watchRunLogs; the socket sends
 * `{type: 'watch', run_id, since}` (since: action id → last seq already received) whenever it is ready, so a
 * reconnect resumes where the lines stopped, and hands each `{type: 'log', …}` line to the run's listeners.
 * isLiveSocketUp/subscribeLiveSocketState tell pages whether to poll instead (no polling while the socket is up).
 */

/** Relations whose rows also appear in other relations' queries (views over them, embeds, counts). */
const RELATED: Record<string, readonly string[]> = {
  agents: ['agents_summary'],
  people: ['people_roles', 'teams', 'team_members'],
  team_members: ['teams'],
  teams: ['team_members'],
  // an incident page reads its hypotheses, evidences and responders embedded in the incident, and its changelog
  incidents: ['incident_histories', 'incident_summary'],
  hypotheses: ['incidents', 'incident_histories'],
  evidences: ['incidents', 'incident_histories'],
  comments: ['incident_histories'],
  responders: ['incidents', 'incident_histories'],
  // settings resources: Integrations lists scrapers, topologies and log backends with their latest job. A job row
  // changes on every canary run, so it refreshes Integrations only (the settings lists show job status when next
  // fetched), not every page that reads canaries.
  topologies: ['integrations_with_status'],
  config_scrapers: ['integrations_with_status'],
  logging_backends: ['integrations_with_status'],
  // the scrapers' list and detail (/catalog/scrapers, under ['db', 'config_scrapers']) show each one's last run: a run
  // that ends changes them (a canary's job refetches them too while one is open, as it does Integrations)
  job_history: ['integrations_with_status', 'config_scrapers'],
  // catalog: a scrape announces each table it wrote once (not per row); the views over them and the item pages
  // (['db', 'config_items', ...]: summary, groups, detail badges) count changes, insights and links
  config_items: ['configs', 'config_detail', 'config_summary', 'config_names', 'config_types', 'catalog_changes', 'config_analysis_items'],
  config_changes: ['config_items', 'configs', 'config_detail', 'config_summary', 'catalog_changes', 'config_changes_items', 'change_types'],
  config_analysis: ['config_items', 'configs', 'config_detail', 'config_summary', 'config_analysis_items', 'analysis_types'],
  config_relationships: ['config_items', 'config_detail'],
  // playbook runs: the run pages read actions and approvals under ['db', 'playbook_runs'] (the engine announces most
  // changes as playbook_runs; an action or approval written alone refreshes them too)
  playbook_run_actions: ['playbook_runs'],
  playbook_approvals: ['playbook_runs'],
};

/** Changes that can alter whoami (name, roles, feature flags) or the Users, Tokens and invite screens. */
const AUTH_RELATIONS = new Set(['people', 'people_roles', 'identities', 'access_tokens', 'invites', 'properties']);

/** The query-key prefixes a message invalidates; `null` means every query. */
export function keysToInvalidate(message: LiveMessage): QueryKey[] | null {
  if (message.type === 'resync') return null;
  if (message.type !== 'change') return [];
  const relations = [message.relation, ...(RELATED[message.relation] ?? [])];
  const keys: QueryKey[] = relations.map((r) => ['db', r]);
  if (AUTH_RELATIONS.has(message.relation)) keys.push(['auth']);
  return keys;
}

const MIN_DELAY_MS = 1_000;
const MAX_DELAY_MS = 30_000;
/** Invalidations arriving this close together are applied once (a bulk import sends many events). */
const BATCH_MS = 100;

function socketUrl(): string {
  const { protocol, host } = window.location;
  return `${protocol === 'https:' ? 'wss:' : 'ws:'}//${host}/api/ws`;
}

type LogListener = (line: LiveLogLine) => void;
interface RunWatch {
  listeners: Set<LogListener>;
  /** Action id → the last seq received, sent with every `watch` so a reconnect resumes after it. */
  since: Record<string, number>;
}
/** The runs this tab watches, whichever component asked. */
const runWatches = new Map<string, RunWatch>();
/** The tab's socket (one per tab); null before it loads and after the session ends. */
let activeSocket: LiveSocket | null = null;
let socketUp = false;
const stateListeners = new Set<() => void>();

function setSocketUp(next: boolean): void {
  if (socketUp === next) return;
  socketUp = next;
  for (const listener of stateListeners) listener();
}

/** Whether the live socket is connected and subscribed (pages poll while it is not). */
export function isLiveSocketUp(): boolean {
  return socketUp;
}

/** Calls `listener` whenever the socket goes up or down; returns the unsubscribe. */
export function subscribeLiveSocketState(listener: () => void): () => void {
  stateListeners.add(listener);
  return () => stateListeners.delete(listener);
}

/**
 * Hands `listener` every output line of run `runId`: the stored ones first (the server replays them on `watch`), then
 * each new one. Returns the unwatch. Lines may repeat after a reconnect: listeners de-duplicate by (action_id, seq).
 */
export function watchRunLogs(runId: string, listener: LogListener): () => void {
  let watch = runWatches.get(runId);
  if (!watch) {
    watch = { listeners: new Set(), since: {} };
    runWatches.set(runId, watch);
    activeSocket?.send({ type: 'watch', run_id: runId });
  }
  watch.listeners.add(listener);
  return () => {
    const w = runWatches.get(runId);
    if (!w) return;
    w.listeners.delete(listener);
    if (w.listeners.size === 0) {
      runWatches.delete(runId);
      activeSocket?.send({ type: 'unwatch', run_id: runId });
    }
  };
}

function deliverLogLine(line: LiveLogLine): void {
  const watch = runWatches.get(line.run_id);
  if (!watch) return;
  watch.since[line.action_id] = Math.max(watch.since[line.action_id] ?? -1, line.seq);
  for (const listener of watch.listeners) listener(line);
}

/** A log live tail's messages (issue 16): history, live, lines, error (server/contracts/events.ts). */
export type LogTailMessage = Extract<LiveMessage, { type: 'logs_tail' }>;
type LogTailSearch = Extract<LiveClientMessage, { type: 'logs_subscribe' }>['search'];
interface LogTail {
  search: LogTailSearch;
  listener: (message: LogTailMessage) => void;
  /** The newest line's time received (ms): a reconnect resumes after it, without the history again. */
  newest: number | null;
}
/** The log tails this tab holds, by their `sub`. */
const logTails = new Map<string, LogTail>();
let nextTail = 0;

function subscribeMessage(sub: string, tail: LogTail): LiveClientMessage {
  return { type: 'logs_subscribe', sub, search: tail.search, ...(tail.newest !== null ? { after: new Date(tail.newest).toISOString() } : {}) };
}

/**
 * Tails a log search over the socket (/logs' Live): `listener` gets the history (newest first), `live`, then new lines
 * (oldest first) and errors. Sent when the socket is ready, again after a reconnect (then from the newest line
 * received: a line of that very time may come twice). Returns the stop, which unsubscribes (the server cancels the
 * backend request).
 */
export function tailLogs(search: LogTailSearch, listener: (message: LogTailMessage) => void): () => void {
  const sub = `logs-${++nextTail}`;
  const tail: LogTail = { search, listener, newest: null };
  logTails.set(sub, tail);
  activeSocket?.send(subscribeMessage(sub, tail));
  return () => {
    if (!logTails.delete(sub)) return;
    activeSocket?.send({ type: 'logs_unsubscribe', sub });
  };
}

function deliverLogTail(message: LogTailMessage): void {
  const tail = logTails.get(message.sub);
  if (!tail) return;
  for (const l of message.lines ?? []) {
    const ms = Date.parse(l.timestamp);
    if (!Number.isNaN(ms) && (tail.newest === null || ms > tail.newest)) tail.newest = ms;
  }
  tail.listener(message);
}

/** The tab's connection: reconnects with back-off, batches invalidations, stops when the session ends. */
export class LiveSocket {
  private socket: WebSocket | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private attempt = 0;
  private stopped = false;
  /** A connection was up before: the next `ready` follows a drop, and events may have been missed. */
  private dropped = false;
  private pending: QueryKey[] = [];
  private everything = false;

  constructor(private readonly qc: QueryClient) {
    activeSocket = this;
    this.connect();
  }

  /** Sends a client message when the socket is ready; otherwise it is dropped (`ready` re-sends every watch). */
  send(message: LiveClientMessage): void {
    if (activeSocket !== this || !socketUp || this.socket?.readyState !== WebSocket.OPEN) return;
    this.socket.send(JSON.stringify(message));
  }

  stop(): void {
    if (activeSocket === this) {
      activeSocket = null;
      setSocketUp(false);
    }
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.socket?.close(1000, 'tab closed the view');
    this.socket = null;
  }

  private connect(): void {
    if (this.stopped) return;
    let socket: WebSocket;
    try {
      socket = new WebSocket(socketUrl());
    } catch {
      this.retry();
      return;
    }
    this.socket = socket;
    // messages are handled in arrival order once the contract is there (normally before the socket opens)
    void loadContract().catch(() => undefined);
    let queue = Promise.resolve();
    socket.onmessage = (e) => {
      queue = queue.then(loadContract).then((c) => this.receive(c, e.data), () => undefined);
    };
    socket.onclose = (e) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.dropped = true;
      if (activeSocket === this) setSocketUp(false);
      if (e.code === WS_CLOSE_SESSION_ENDED) {
        // signed out elsewhere: whoami answers 401 and the app goes to the sign-in page; no reconnecting
        this.stopped = true;
        this.invalidate([['auth']]);
        return;
      }
      this.retry();
    };
  }

  private receive({ LiveMessage }: Contract, data: unknown): void {
    if (this.stopped) return;
    let message: LiveMessage;
    try {
      message = LiveMessage.parse(JSON.parse(String(data)));
    } catch {
      return; // a message of a newer server: ignore it
    }
    if (message.type === 'ready') {
      this.attempt = 0;
      if (this.dropped) this.invalidate(null);
      if (activeSocket === this) {
        setSocketUp(true);
        for (const [runId, watch] of runWatches) {
          const since = Object.keys(watch.since).length ? { ...watch.since } : undefined;
          this.send({ type: 'watch', run_id: runId, ...(since ? { since } : {}) });
        }
        for (const [sub, tail] of logTails) this.send(subscribeMessage(sub, tail));
      }
      return;
    }
    if (message.type === 'log') {
      deliverLogLine(message);
      return;
    }
    if (message.type === 'logs_tail') {
      deliverLogTail(message);
      return;
    }
    this.invalidate(keysToInvalidate(message));
  }

  private retry(): void {
    if (this.stopped || this.timer) return;
    const delay = Math.min(MAX_DELAY_MS, MIN_DELAY_MS * 2 ** this.attempt) * (0.5 + Math.random() / 2);
    this.attempt = Math.min(this.attempt + 1, 10);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, delay);
  }

  private invalidate(keys: QueryKey[] | null): void {
    if (keys === null) this.everything = true;
    else this.pending.push(...keys);
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = null;
      const everything = this.everything;
      const keys = this.pending;
      this.everything = false;
      this.pending = [];
      if (everything) void this.qc.invalidateQueries();
      else {
        const unique = new Map(keys.map((k) => [JSON.stringify(k), k]));
        for (const queryKey of unique.values()) void this.qc.invalidateQueries({ queryKey });
      }
    }, BATCH_MS);
  }
}

