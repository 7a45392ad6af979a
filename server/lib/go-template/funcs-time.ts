import { Namespace, type TemplateFunc } from './exec.js';
import { formatValue } from './format.js';
import { goDurationString, toInt64 } from './gomplate-values.js';
import { goTimeFormat, goTimeParse } from './go-time.js';

/**
 * gomplate's `time` namespace in templates (funcs/time.go) and the Go values it returns: a time.Time with Format,
 * Add, Sub, UTC, Unix... and a time.Duration with Hours, Minutes, Seconds... (the methods a template calls as
 * `(time.Now).Format "2006-01-02"`). Times are in UTC.
 */

const f = (min: number, max: number, call: (args: unknown[]) => unknown): TemplateFunc => ({ arity: [min, max], call: (args) => call(args) });

const NS_PER_MS = 1_000_000n;

/** A Go time.Duration (nanoseconds). */
export class GoDuration extends Namespace {
  constructor(readonly ns: bigint) {
    const n = Number(ns);
    super('time.Duration', {
      Hours: f(0, 0, () => n / 3.6e12),
      Minutes: f(0, 0, () => n / 6e10),
      Seconds: f(0, 0, () => n / 1e9),
      Milliseconds: f(0, 0, () => Number(ns / NS_PER_MS)),
      Nanoseconds: f(0, 0, () => n),
      String: f(0, 0, () => goDurationString(ns)),
    });
  }
  override goString(): string {
    return goDurationString(this.ns);
  }
  toJSON(): number {
    return Number(this.ns);
  }
}

/** A Go time.Time. */
export class GoTime extends Namespace {
  constructor(readonly date: Date) {
    const ms = date.getTime();
    super('time.Time', {
      Format: f(1, 1, ([layout]) => goTimeFormat(date, String(layout))),
      Add: f(1, 1, ([d]) => new GoTime(new Date(ms + Number(durationOf(d) / NS_PER_MS)))),
      Sub: f(1, 1, ([t]) => new GoDuration(BigInt(ms - timeOf(t).getTime()) * NS_PER_MS)),
      Before: f(1, 1, ([t]) => ms < timeOf(t).getTime()),
      After: f(1, 1, ([t]) => ms > timeOf(t).getTime()),
      Equal: f(1, 1, ([t]) => ms === timeOf(t).getTime()),
      UTC: f(0, 0, () => new GoTime(date)),
      Local: f(0, 0, () => new GoTime(date)),
      Unix: f(0, 0, () => Math.floor(ms / 1000)),
      UnixMilli: f(0, 0, () => ms),
      Year: f(0, 0, () => date.getUTCFullYear()),
      YearDay: f(0, 0, () => Number(goTimeFormat(date, '002'))),
      Month: f(0, 0, () => date.getUTCMonth() + 1),
      Day: f(0, 0, () => date.getUTCDate()),
      Hour: f(0, 0, () => date.getUTCHours()),
      Minute: f(0, 0, () => date.getUTCMinutes()),
      Second: f(0, 0, () => date.getUTCSeconds()),
      Weekday: f(0, 0, () => goTimeFormat(date, 'Monday')),
      String: f(0, 0, () => formatValue(date)),
    });
  }
  override goString(): string {
    return formatValue(this.date);
  }
  toJSON(): string {
    return this.date.toISOString();
  }
}

function timeOf(v: unknown): Date {
  if (v instanceof GoTime) return v.date;
  if (v instanceof Date) return v;
  if (typeof v === 'string' && !Number.isNaN(Date.parse(v))) return new Date(v);
  throw new Error(`expected a time, got ${formatValue(v)}`);
}

function durationOf(v: unknown): bigint {
  if (v instanceof GoDuration) return v.ns;
  if (typeof v === 'number' || typeof v === 'bigint') return BigInt(toInt64(v));
  throw new Error(`expected a duration, got ${formatValue(v)}`);
}

const UNIT_NS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 6e10, h: 3.6e12, d: 8.64e13, w: 6.048e14, y: 3.1536e16 };

/** gomplate's strings.ParseDuration: Go's units plus d, w and y (365d), signed and combinable (`1d12h`). */
export function parseGomplateDuration(text: string): bigint {
  const m = /^([+-]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h|d|w|y))+)$/.exec(text);
  if (!m) {
    if (/^[+-]?0$/.test(text)) return 0n;
    throw new Error(`time: invalid duration ${text}`);
  }
  let ns = 0;
  for (const part of m[2].matchAll(/(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h|d|w|y)/g)) ns += Number(part[1]) * UNIT_NS[part[2]];
  return BigInt(Math.round(m[1] === '-' ? -ns : ns));
}

export const TIME: Record<string, TemplateFunc> = {
  Now: f(0, 0, () => new GoTime(new Date())),
  Parse: f(2, 2, ([layout, value]) => new GoTime(goTimeParse(String(layout), String(value)))),
  ParseDuration: f(1, 1, ([s]) => new GoDuration(parseGomplateDuration(String(s)))),
  Since: f(1, 1, ([t]) => new GoDuration(BigInt(Date.now() - timeOf(t).getTime()) * NS_PER_MS)),
  Unix: f(1, 1, ([sec]) => new GoTime(new Date(toInt64(sec) * 1000))),
};
