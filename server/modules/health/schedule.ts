import { createHash } from 'node:crypto';
import { CronExpressionParser } from 'cron-parser';

/**
 * A canary's schedule: `@every <Go duration>` (e.g. `@every 1m30s`), a 5-field cron expression (6 with seconds),
 * a descriptor (`@hourly`, `@daily`, ...), or never. Cron is evaluated in UTC, or in the time zone of a
 * `CRON_TZ=<zone>` / `TZ=<zone>` prefix as the reference's cron parser (robfig/cron) reads it
 * (`CRON_TZ=Europe/London 30 9 * * MON-FRI`).
 */
export type Schedule =
  | { kind: 'every'; text: string; everyMs: number }
  | { kind: 'cron'; text: string; expr: string; periodMs: number; tz: string }
  | { kind: 'never'; text: string };

export class ScheduleError extends Error {}

/** Shortest interval accepted: below this a canary would run hot. */
export const MIN_INTERVAL_MS = 1_000;
/** Cron runs are spread over at most this much after their time (and at most a tenth of their period). */
const MAX_CRON_SPREAD_MS = 30_000;

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *', '@annually': '0 0 1 1 *', '@monthly': '0 0 1 * *', '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *', '@midnight': '0 0 * * *', '@hourly': '0 * * * *',
};

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Parses a Go duration (`1m30s`, `500ms`, `2h`) into milliseconds. */
export function parseGoDuration(text: string): number {
  const t = text.trim();
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(t)) throw new ScheduleError(`invalid duration "${text}" (expected e.g. 30s, 1m30s, 2h)`);
  let ms = 0;
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) ms += Number(m[1]) * UNIT_MS[m[2]];
  return ms;
}

/** Parses a schedule; `interval` (seconds, deprecated) is used when `schedule` is empty. Throws ScheduleError. */
export function parseSchedule(schedule: string | undefined | null, interval?: number | null): Schedule {
  const text = (schedule ?? '').trim();
  if (!text) {
    if (interval === undefined || interval === null || interval === 0) return { kind: 'never', text: '@never' };
    return parseSchedule(`@every ${interval}s`);
  }
  if (text === '@never') return { kind: 'never', text };
  if (text.startsWith('@every')) {
    const d = text.slice('@every'.length).trim();
    if (!d) throw new ScheduleError('invalid schedule "@every": missing duration');
    const everyMs = parseGoDuration(d);
    if (everyMs < MIN_INTERVAL_MS) throw new ScheduleError(`invalid schedule "${text}": the interval must be at least 1s`);
    return { kind: 'every', text, everyMs };
  }
  let tz = 'UTC';
  let expr = text;
  const zoned = /^(?:CRON_TZ|TZ)=(\S+)\s+(.*)$/.exec(text);
  if (zoned) {
    tz = zoned[1];
    expr = zoned[2].trim();
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
    } catch {
      throw new ScheduleError(`invalid schedule "${text}": unknown time zone "${tz}"`);
    }
    if (expr.startsWith('@every') || expr === '@never') throw new ScheduleError(`invalid schedule "${text}": a time zone applies to cron expressions and descriptors only`);
  }
  if (expr.startsWith('@')) {
    const descriptor = expr;
    expr = DESCRIPTORS[descriptor.toLowerCase()];
    if (!expr) throw new ScheduleError(`invalid schedule "${text}": unknown descriptor`);
  }
  const fields = expr.split(/\s+/).length;
  if (fields !== 5 && fields !== 6) {
    throw new ScheduleError(`invalid schedule "${text}": a cron expression has 5 fields (minute hour day month weekday)`);
  }
  try {
    const it = CronExpressionParser.parse(expr, { tz, currentDate: new Date() });
    const a = it.next().getTime();
    const b = it.next().getTime();
    return { kind: 'cron', text, expr, periodMs: Math.max(MIN_INTERVAL_MS, b - a), tz };
  } catch (err) {
    throw new ScheduleError(`invalid schedule "${text}": ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** A stable number in [0, mod) from a key: the same canary keeps the same place in its interval across restarts. */
export function spreadOffset(key: string, mod: number): number {
  if (mod <= 0) return 0;
  const h = createHash('sha1').update(key).digest();
  return h.readUInt32BE(0) % Math.floor(mod);
}

/** The run interval for timeouts and display: the `@every` duration or the cron period; null for never. */
export function intervalMs(s: Schedule): number | null {
  return s.kind === 'every' ? s.everyMs : s.kind === 'cron' ? s.periodMs : null;
}

/**
 * The first run strictly after `after`. `@every` runs keep a fixed phase derived from `key`, which spreads canaries
 * with the same interval evenly over it; cron runs are delayed by a stable offset of up to a tenth of their period
 * (30 s at most), so `* * * * *` canaries do not all start on the minute.
 */
export function nextRun(s: Schedule, after: number, key: string): number | null {
  if (s.kind === 'never') return null;
  if (s.kind === 'every') {
    const phase = spreadOffset(key, s.everyMs);
    return Math.floor((after - phase) / s.everyMs) * s.everyMs + phase + s.everyMs;
  }
  const spread = spreadOffset(key, Math.min(MAX_CRON_SPREAD_MS, s.periodMs / 10));
  const it = CronExpressionParser.parse(s.expr, { tz: s.tz, currentDate: new Date(after - spread) });
  let t = it.next().getTime() + spread;
  while (t <= after) t = it.next().getTime() + spread;
  return t;
}
