/**
 * The Logs page's plain model (no React): what a streamed line is, the time presets, severities, the live-tail cap.
 * The wire shapes follow POST /api/logs (server/contracts/logs.ts): NDJSON, one result per line, then
 * `{done, total, nextPage?}` last, or `{error}` when the search failed after streaming began.
 */

/** Spec 000 §9: the search box waits for 500 ms of quiet before it searches. */
export const SEARCH_DEBOUNCE_MS = 500;
/** Live tail keeps this many lines; older ones are dropped as new ones arrive (issue 16, Beyond 2). */
export const LIVE_LINE_CAP = 50_000;
/** Lines asked for per page (the server allows up to 5,000). */
export const PAGE_LIMIT = 1_000;

export const EMPTY_TEXTS = {
  noComponent: 'Please select a component to view the logs',
  noResults: 'There are no logs matching the search query',
  componentsError: 'Unable to load components!',
} as const;

/** The time range presets, as `start` durations the server parses; the first is the default. */
export const TIME_PRESETS = [
  { value: '15m', label: 'Last 15 minutes' },
  { value: '30m', label: 'Last 30 minutes' },
  { value: '1h', label: 'Last 1 hour' },
  { value: '3h', label: 'Last 3 hours' },
  { value: '6h', label: 'Last 6 hours' },
  { value: '12h', label: 'Last 12 hours' },
  { value: '24h', label: 'Last 24 hours' },
  { value: '72h', label: 'Last 3 days' },
  { value: '168h', label: 'Last 7 days' },
] as const;
export const DEFAULT_START = TIME_PRESETS[0].value;

export interface LogResult {
  timestamp: string;
  message: string;
  labels: Record<string, string>;
  severity?: string;
}

/** A result as the page holds it: a stable id for selection and React keys. */
export interface LogLine extends LogResult {
  id: number;
}

export type StreamMessage =
  | { kind: 'result'; result: LogResult }
  | { kind: 'live' }
  | { kind: 'done'; total: number; nextPage?: string }
  | { kind: 'error'; error: string };

function stringLabels(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined && v !== null) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

/** One parsed NDJSON object as the page reads it; null for anything it does not recognise (skipped). */
export function toStreamMessage(value: unknown): StreamMessage | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.error === 'string') return { kind: 'error', error: v.error };
  if (v.live === true) return { kind: 'live' };
  if (v.done === true) {
    const nextPage = v.nextPage === undefined || v.nextPage === null ? undefined : String(v.nextPage);
    return { kind: 'done', total: typeof v.total === 'number' ? v.total : 0, ...(nextPage ? { nextPage } : {}) };
  }
  if (typeof v.message !== 'string') return null;
  const result: LogResult = {
    timestamp: typeof v.timestamp === 'string' ? v.timestamp : String(v.timestamp ?? ''),
    message: v.message,
    labels: stringLabels(v.labels),
  };
  if (typeof v.severity === 'string' && v.severity) result.severity = v.severity;
  return { kind: 'result', result };
}

export type SeverityLevel = 'error' | 'warn' | 'info' | 'debug';

/** A backend's severity word folded to four levels (fatal/critical count as error, trace as debug). */
export function severityLevel(severity: string | undefined): SeverityLevel | undefined {
  const s = severity?.trim().toLowerCase();
  if (!s) return undefined;
  if (/^(err|error|fatal|crit|critical|emerg|emergency|alert|panic)$/.test(s)) return 'error';
  if (/^(warn|warning)$/.test(s)) return 'warn';
  if (/^(info|information|notice)$/.test(s)) return 'info';
  if (/^(debug|trace|verbose)$/.test(s)) return 'debug';
  return undefined;
}

/**
 * The loaded lines in display order, oldest first (newest at the bottom, as a terminal tails). The server sends the
 * history newest first and live lines oldest first: `older` keeps the history as it came (index 0 the newest), `newer`
 * the live lines, so neither arrival order costs a shift of what is already loaded.
 */
export class LogBuffer<T> {
  private older: T[] = [];
  private newer: T[] = [];

  get size(): number {
    return this.older.length + this.newer.length;
  }

  /** The line at display row `i` (0 = the oldest loaded). */
  at(i: number): T {
    const h = this.older.length;
    return i < h ? this.older[h - 1 - i] : this.newer[i - h];
  }

  /** History lines, newest first, each older than every line already loaded. */
  addOlder(lines: T[]): void {
    for (const l of lines) this.older.push(l);
  }

  /** Live lines, oldest first, each newer than every line already loaded. */
  addNewer(lines: T[]): void {
    for (const l of lines) this.newer.push(l);
  }

  /** Drops the oldest lines beyond `cap`; returns how many went. */
  cap(cap: number): number {
    let over = this.size - cap;
    if (over <= 0) return 0;
    const dropped = over;
    const fromOlder = Math.min(over, this.older.length);
    this.older.length -= fromOlder;
    over -= fromOlder;
    if (over > 0) this.newer.splice(0, over);
    return dropped;
  }

  /** Every line in display order. */
  toArray(): T[] {
    return [...this.older].reverse().concat(this.newer);
  }
}

/** A selector of a component's `log_selectors`. */
export interface LogSelector {
  name: string;
  type?: string;
  labels?: Record<string, string>;
}

/** The component's `log_selectors` column as a list of named selectors (unnamed or malformed entries skipped). */
export function parseSelectors(value: unknown): LogSelector[] {
  if (!Array.isArray(value)) return [];
  const out: LogSelector[] = [];
  for (const e of value) {
    if (typeof e !== 'object' || e === null) continue;
    const r = e as Record<string, unknown>;
    if (typeof r.name !== 'string' || !r.name) continue;
    out.push({ name: r.name, ...(typeof r.type === 'string' ? { type: r.type } : {}), labels: stringLabels(r.labels) });
  }
  return out;
}

/** The start preset the URL names, else the default (an unknown value from an old link is kept out). */
export function presetOf(start: string): string {
  return TIME_PRESETS.some((p) => p.value === start) ? start : DEFAULT_START;
}
