/**
 * Time ranges as every screen with a time filter uses them (spec 001 §4 "Time range kinds"):
 * - relative: two expressions such as `now-2d` .. `now`, re-evaluated on every fetch;
 * - mapped: a named span from the lookup table (`1h`, `3mo`), as the health page's `timeRange` query uses;
 * - absolute: two instants, shown as "Custom".
 * Plain types (no zod): every page with a time filter loads this at start-up.
 */

export interface RelativeTimeRange {
  type: 'relative';
  display: string;
  from: string;
  to: string;
}

export const MAPPED_RANGE_KEYS = [
  '15m', '1h', '2h', '3h', '6h', '12h', '1d', '2d', '3d', '1w', '2w', '3w',
  '1mo', '2mo', '3mo', '6mo', '1y', '2y', '3y', '5y',
] as const;
export type MappedRangeKey = (typeof MAPPED_RANGE_KEYS)[number];

export interface MappedTimeRange {
  type: 'mapped';
  display: string;
  range: MappedRangeKey;
}

export interface AbsoluteTimeRange {
  type: 'absolute';
  display: 'Custom';
  /** ISO 8601 instants. */
  from: string;
  to: string;
}

export type TimeRange = RelativeTimeRange | MappedTimeRange | AbsoluteTimeRange;

/** A stored absolute range, checked field by field; only the known fields are kept. */
function storedAbsoluteRange(value: unknown): AbsoluteTimeRange | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (v.type !== 'absolute' || v.display !== 'Custom' || typeof v.from !== 'string' || typeof v.to !== 'string') return null;
  return { type: 'absolute', display: 'Custom', from: v.from, to: v.to };
}

export const INVALID_MAPPED_RANGE = 'Invalid mapped time range';

// ---------------------------------------------------------------------------------------------------------------
// Relative expressions: `now`, then any of `+N<unit>`, `-N<unit>`, `/<unit>` (round to the start of the unit).

export const TIME_UNITS = ['ms', 's', 'm', 'h', 'd', 'w', 'M', 'y'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

const FIXED_MS: Partial<Record<TimeUnit, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

// `ms` before `m` and `M`; units are case-sensitive (m minutes, M months)
const STEP = /([+-])(\d+)(ms|s|m|h|d|w|M|y)|\/(ms|s|m|h|d|w|M|y)/y;

type Step = { kind: 'add'; amount: number; unit: TimeUnit } | { kind: 'round'; unit: TimeUnit };

function parseSteps(expr: string): Step[] | null {
  const text = expr.replace(/\s+/g, '');
  if (!text.startsWith('now')) return null;
  const steps: Step[] = [];
  let pos = 3;
  while (pos < text.length) {
    STEP.lastIndex = pos;
    const m = STEP.exec(text);
    if (!m) return null;
    if (m[4]) steps.push({ kind: 'round', unit: m[4] as TimeUnit });
    else steps.push({ kind: 'add', amount: (m[1] === '-' ? -1 : 1) * Number(m[2]), unit: m[3] as TimeUnit });
    pos = STEP.lastIndex;
  }
  return steps;
}

/** True for `now`, `now-2d`, `now-1h/h`, `now/w+1d` and the like. */
export function isRelativeExpression(expr: string): boolean {
  return parseSteps(expr) !== null;
}

function add(d: Date, amount: number, unit: TimeUnit): Date {
  const fixed = FIXED_MS[unit];
  if (fixed) return new Date(d.getTime() + amount * fixed);
  // days and longer follow the local calendar, so "now-1d" is the same wall-clock time yesterday across DST
  const r = new Date(d);
  if (unit === 'd') r.setDate(r.getDate() + amount);
  else if (unit === 'w') r.setDate(r.getDate() + amount * 7);
  else if (unit === 'M') r.setMonth(r.getMonth() + amount);
  else r.setFullYear(r.getFullYear() + amount);
  return r;
}

/** Start of the unit containing `d`, local time; weeks start on Monday (ISO 8601). */
function startOf(d: Date, unit: TimeUnit): Date {
  const r = new Date(d);
  switch (unit) {
    case 'ms':
      return r;
    case 's':
      r.setMilliseconds(0);
      return r;
    case 'm':
      r.setSeconds(0, 0);
      return r;
    case 'h':
      r.setMinutes(0, 0, 0);
      return r;
    case 'd':
      r.setHours(0, 0, 0, 0);
      return r;
    case 'w': {
      r.setHours(0, 0, 0, 0);
      r.setDate(r.getDate() - ((r.getDay() + 6) % 7));
      return r;
    }
    case 'M':
      r.setHours(0, 0, 0, 0);
      r.setDate(1);
      return r;
    case 'y':
      r.setHours(0, 0, 0, 0);
      r.setMonth(0, 1);
      return r;
  }
}

/** Last millisecond of the unit containing `d`: the end of a range such as "yesterday" (`now-1d/d`). */
function endOf(d: Date, unit: TimeUnit): Date {
  if (unit === 'ms') return new Date(d);
  return new Date(add(startOf(d, unit), 1, unit).getTime() - 1);
}

/**
 * Evaluates `now-2d`, `now-1h/h`, `now+30m`, `now/d` against `now`. With `roundUp` (for the end of a range),
 * `/unit` goes to the end of that unit instead of its start, so `now-1d/d` .. `now-1d/d` covers all of yesterday.
 * An ISO date is accepted too. Throws on anything else.
 */
export function parseTimeExpression(expr: string, now: Date = new Date(), roundUp = false): Date {
  const steps = parseSteps(expr);
  if (!steps) {
    const d = new Date(expr);
    if (expr.trim() && !Number.isNaN(d.getTime()) && /\d{4}-\d{2}-\d{2}/.test(expr)) return d;
    throw new Error(`Invalid time expression: ${expr}`);
  }
  let d = new Date(now);
  for (const step of steps) {
    d = step.kind === 'add' ? add(d, step.amount, step.unit) : roundUp ? endOf(d, step.unit) : startOf(d, step.unit);
  }
  return d;
}

// ---------------------------------------------------------------------------------------------------------------
// Mapped ranges (the spec's lookup from 15m to 5y)

const UNIT_NAMES: Record<string, [string, string]> = {
  m: ['minute', 'minutes'],
  h: ['hour', 'hours'],
  d: ['day', 'days'],
  w: ['week', 'weeks'],
  mo: ['month', 'months'],
  y: ['year', 'years'],
};

function spanName(key: string): { n: number; unit: string; label: string } {
  const m = /^(\d+)(mo|m|h|d|w|y)$/.exec(key)!;
  const n = Number(m[1]);
  const [one, many] = UNIT_NAMES[m[2]];
  return { n, unit: m[2], label: `${n} ${n === 1 ? one : many}` };
}

/** `15m` -> `now-15m`, `1mo` -> `now-1M`. */
function mappedExpression(key: MappedRangeKey): string {
  const { n, unit } = spanName(key);
  return `now-${n}${unit === 'mo' ? 'M' : unit}`;
}

/** The mapped range for a key such as `1h` or `3mo`; throws "Invalid mapped time range" for an unknown key. */
export function mappedRange(key: string): MappedTimeRange {
  if (!(MAPPED_RANGE_KEYS as readonly string[]).includes(key)) throw new Error(INVALID_MAPPED_RANGE);
  const range = key as MappedRangeKey;
  return { type: 'mapped', display: `Last ${spanName(range).label}`, range };
}

/** Every mapped range in order (for selects such as the check drawer's Time Range dropdown). */
export const MAPPED_TIME_RANGES: MappedTimeRange[] = MAPPED_RANGE_KEYS.map((k) => mappedRange(k));

// ---------------------------------------------------------------------------------------------------------------
// Evaluation

export interface ResolvedRange {
  from: Date;
  to: Date;
}

/** The instants a range covers right now. */
export function resolveTimeRange(range: TimeRange, now: Date = new Date()): ResolvedRange {
  switch (range.type) {
    case 'relative':
      return { from: parseTimeExpression(range.from, now), to: parseTimeExpression(range.to, now, true) };
    case 'mapped':
      return { from: parseTimeExpression(mappedExpression(range.range), now), to: new Date(now) };
    case 'absolute':
      return { from: new Date(range.from), to: new Date(range.to) };
  }
}

/** How many minutes a range spans (the refresh-rate rules depend on it). */
export function rangeMinutes(range: TimeRange, now: Date = new Date()): number {
  const { from, to } = resolveTimeRange(range, now);
  return Math.abs(to.getTime() - from.getTime()) / 60_000;
}

// ---------------------------------------------------------------------------------------------------------------
// Presets

function relative(display: string, from: string, to = 'now'): RelativeTimeRange {
  return { type: 'relative', display, from, to };
}

const PRESET_SPANS = ['5m', '15m', '30m', '1h', '3h', '6h', '12h', '1d', '2d', '7d', '30d', '3mo', '6mo', '1y', '2y', '5y'];

function presetExpr(key: string): string {
  const { n, unit } = spanName(key);
  return `${n}${unit === 'mo' ? 'M' : unit}`;
}

/** "Last 5 minutes" .. "Last 5 years" (spec 000 §9: presets 5m to 5y, past and future). */
export const PAST_PRESETS: RelativeTimeRange[] = PRESET_SPANS.map((k) =>
  relative(`Last ${spanName(k).label}`, `now-${presetExpr(k)}`),
);

/** "Next 5 minutes" .. "Next 5 years", for schedules and silences. */
export const FUTURE_PRESETS: RelativeTimeRange[] = PRESET_SPANS.map((k) =>
  relative(`Next ${spanName(k).label}`, 'now', `now+${presetExpr(k)}`),
);

/** Calendar-aligned ranges. */
export const QUICK_RANGES: RelativeTimeRange[] = [
  relative('Today so far', 'now/d'),
  relative('This week so far', 'now/w'),
  relative('This month so far', 'now/M'),
  relative('This year so far', 'now/y'),
  relative('Today', 'now/d', 'now/d'),
  relative('Yesterday', 'now-1d/d', 'now-1d/d'),
  relative('Day before yesterday', 'now-2d/d', 'now-2d/d'),
  relative('This week', 'now/w', 'now/w'),
  relative('Previous week', 'now-1w/w', 'now-1w/w'),
  relative('This month', 'now/M', 'now/M'),
  relative('Previous month', 'now-1M/M', 'now-1M/M'),
  relative('This year', 'now/y', 'now/y'),
  relative('Previous year', 'now-1y/y', 'now-1y/y'),
];

/** Spec 001 §4: the default is the relative range of the last 2 days. */
export const DEFAULT_TIME_RANGE: RelativeTimeRange = relative('Last 2 days', 'now-2d');

/** An absolute range between two instants. */
export function absoluteRange(from: Date, to: Date): AbsoluteTimeRange {
  return { type: 'absolute', display: 'Custom', from: from.toISOString(), to: to.toISOString() };
}

/** What a picker button shows for a range. */
export function timeRangeLabel(range: TimeRange): string {
  if (range.type !== 'absolute') return range.display;
  const fmt = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
  return `${fmt.format(new Date(range.from))} – ${fmt.format(new Date(range.to))}`;
}

export function sameTimeRange(a: TimeRange, b: TimeRange): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 'mapped' && b.type === 'mapped') return a.range === b.range;
  return (a as RelativeTimeRange).from === (b as RelativeTimeRange).from && (a as RelativeTimeRange).to === (b as RelativeTimeRange).to;
}

// ---------------------------------------------------------------------------------------------------------------
// URL parameters: rangeType, display, from, to, range, timeRange

export const TIME_RANGE_PARAMS = ['rangeType', 'display', 'from', 'to', 'range', 'timeRange'] as const;
export type TimeRangeParam = (typeof TIME_RANGE_PARAMS)[number];

/** Reads a range from the query; `timeRange=1h` (the health page's form) reads as a mapped range. */
export function timeRangeFromParams(params: URLSearchParams, fallback: TimeRange = DEFAULT_TIME_RANGE): TimeRange {
  const type = params.get('rangeType');
  const from = params.get('from');
  const to = params.get('to');
  try {
    if (type === 'relative' && from && isRelativeExpression(from) && (!to || isRelativeExpression(to))) {
      return relative(params.get('display') || from, from, to || 'now');
    }
    if (type === 'mapped') return mappedRange(params.get('range') ?? '');
    if (type === 'absolute' && from && to) {
      const f = new Date(from);
      const t = new Date(to);
      if (!Number.isNaN(f.getTime()) && !Number.isNaN(t.getTime())) return absoluteRange(f, t);
    }
    const legacy = params.get('timeRange');
    if (!type && legacy) return mappedRange(legacy);
  } catch {
    // an unknown mapped key in a shared link: fall back rather than break the page
  }
  return fallback;
}

/** The query values for a range; `undefined` means "remove this parameter". */
export function timeRangeToParams(range: TimeRange): Record<TimeRangeParam, string | undefined> {
  const base: Record<TimeRangeParam, string | undefined> = {
    rangeType: range.type,
    display: range.display,
    from: undefined,
    to: undefined,
    range: undefined,
    timeRange: undefined,
  };
  if (range.type === 'mapped') return { ...base, range: range.range };
  return { ...base, from: range.from, to: range.to };
}

// ---------------------------------------------------------------------------------------------------------------
// Recent absolute ranges (spec 001 §9: 5 kept)

export const RECENT_RANGES_KEY = 'timeRangePicker.recentAbsolute';
export const RECENT_RANGES_MAX = 5;

/** The last absolute ranges the user submitted, newest first. Corrupt storage reads as empty. */
export function loadRecentRanges(storage: Storage | undefined = globalThis.localStorage): AbsoluteTimeRange[] {
  try {
    const raw = storage?.getItem(RECENT_RANGES_KEY);
    if (!raw) return [];
    const parsed: unknown = JSON.parse(raw);
    if (!Array.isArray(parsed)) return [];
    const ranges = parsed.map(storedAbsoluteRange);
    // as the zod check did: one bad entry makes the whole list unreadable
    return ranges.every((r) => r !== null) ? (ranges as AbsoluteTimeRange[]).slice(0, RECENT_RANGES_MAX) : [];
  } catch {
    return [];
  }
}

/** Puts `range` first, drops its duplicate and anything beyond five; returns the new list. */
export function rememberRecentRange(
  range: AbsoluteTimeRange,
  storage: Storage | undefined = globalThis.localStorage,
): AbsoluteTimeRange[] {
  const next = [range, ...loadRecentRanges(storage).filter((r) => !sameTimeRange(r, range))].slice(0, RECENT_RANGES_MAX);
  try {
    storage?.setItem(RECENT_RANGES_KEY, JSON.stringify(next));
  } catch {
    // private mode or a full quota: the list is a convenience
  }
  return next;
}
