/** Display formatting shared by every screen (spec 000 §9, spec 001 §9). Pure functions: easy to test, no React. */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MONTH = 30 * DAY;
const YEAR = 365 * DAY;

type DateInput = Date | string | number | null | undefined;

/** A Date from an ISO string, epoch ms or Date; null when missing or unparseable. */
export function toDate(value: DateInput): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

function compactSpan(ms: number): string {
  if (ms < MINUTE) return `${Math.floor(ms / SECOND)}s`;
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)}m`;
  if (ms < DAY) return `${Math.floor(ms / HOUR)}h`;
  if (ms < MONTH) return `${Math.floor(ms / DAY)}d`;
  if (ms < YEAR) return `${Math.floor(ms / MONTH)}mo`;
  return `${Math.floor(ms / YEAR)}y`;
}

/**
 * How long ago something happened, compact: "just now", "45s ago", "5m ago", "3h ago", "2d ago", "4mo ago", "1y ago".
 * Future times read "in 5m" (next runs, silences ending). Missing dates give an empty string.
 */
export function formatAge(value: DateInput, now: number = Date.now()): string {
  const d = toDate(value);
  if (!d) return '';
  const diff = now - d.getTime();
  if (Math.abs(diff) < SECOND) return 'just now';
  return diff > 0 ? `${compactSpan(diff)} ago` : `in ${compactSpan(-diff)}`;
}

function trim(n: number, digits: number): string {
  // 1.50 -> "1.5", 2.00 -> "2": trailing zeros are noise in a table cell
  return String(Number(n.toFixed(digits)));
}

// durations are written one way by the server's check messages and by every screen (spec 000 §9)
export { formatDuration } from '@contracts/duration';

/** A percentage with one decimal (spec 000 §9): 99.94 -> "99.9%". */
export function formatPercent(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '';
  return `${value.toFixed(1)}%`;
}

/** Uptime as a percentage from passed/failed counts; empty when nothing ran. */
export function formatUptime(passed: number, failed: number): string {
  const total = passed + failed;
  return total ? formatPercent((passed / total) * 100) : '';
}

/**
 * Money, abbreviated with k above 1000 (spec 001 §9): 12.5 -> "$12.50", 1500 -> "$1.5k". Values above a million
 * use "M" so a cluster bill does not read "$2500k".
 */
export function formatCurrency(value: number | null | undefined, symbol = '$'): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '';
  const sign = value < 0 ? '-' : '';
  const v = Math.abs(value);
  if (v > 1_000_000) return `${sign}${symbol}${trim(v / 1_000_000, 1)}M`;
  if (v > 1_000) return `${sign}${symbol}${trim(v / 1_000, 1)}k`;
  return `${sign}${symbol}${v.toFixed(2)}`;
}

const dateTimeFormat = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/** A full local date and time for tooltips and detail panels: "Mar 4, 2026, 10:15 AM". */
export function formatDateTime(value: DateInput): string {
  const d = toDate(value);
  return d ? dateTimeFormat.format(d) : '';
}

const DURATION_UNITS_NS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
  d: 86_400e9,
  w: 604_800e9,
};

/**
 * Parses a Go-style duration ("30s", "1h30m", "2d", "1w") into nanoseconds, as the duration fields store them
 * (spec 001 §5). Returns NaN for anything else, including a bare number.
 */
export function parseDurationNs(text: string): number {
  const input = text.trim();
  if (!input) return Number.NaN;
  const re = /(\d+(?:\.\d+)?)(ns|us|ms|s|m|h|d|w)/y;
  let total = 0;
  let pos = 0;
  while (pos < input.length) {
    re.lastIndex = pos;
    const m = re.exec(input);
    if (!m) return Number.NaN;
    total += Number(m[1]) * DURATION_UNITS_NS[m[2]];
    pos = re.lastIndex;
  }
  return total;
}

/** Nanoseconds back to the shortest duration text ("90m" -> "1h30m"), for editing a stored value. */
export function formatDurationNs(ns: number): string {
  if (!Number.isFinite(ns) || ns <= 0) return '';
  let rest = ns;
  let out = '';
  for (const unit of ['w', 'd', 'h', 'm', 's', 'ms'] as const) {
    const size = DURATION_UNITS_NS[unit];
    const n = Math.floor(rest / size);
    if (n) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out || `${ns}ns`;
}
