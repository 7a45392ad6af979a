import { evalCel } from '../../../lib/cel.js';

/**
 * Quiet hours (issue 15 "Beyond the reference"): notifications.quiet_hours {timezone, days, start, end, except}.
 * Inside them a send is held; held sends leave as one digest when they end. `except` is a CEL expression over the
 * resource's env: true lets a send through (a critical check, say). Days are mon…sun (empty or absent: every day);
 * start/end are HH:MM in the timezone; an end before the start spans midnight (22:00–07:00).
 */
export interface QuietHours {
  timezone?: string;
  days?: string[];
  start: string;
  end: string;
  except?: string;
}

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

function minutes(hhmm: string): number | null {
  const m = /^(\d{1,2}):(\d{2})$/.exec(hhmm.trim());
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** The local day (0 = Sunday) and minute of the day of `at` in the timezone. */
const formats = new Map<string, Intl.DateTimeFormat>();

function localTime(at: Date, timezone: string): { day: number; minute: number } {
  let format = formats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: timezone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    if (formats.size < 100) formats.set(timezone, format);
  }
  const parts = format.formatToParts(at);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return { day: DAYS.indexOf(get('weekday').slice(0, 3).toLowerCase()), minute: Number(get('hour')) * 60 + Number(get('minute')) };
}

function dayAllowed(q: QuietHours, day: number): boolean {
  return !q.days?.length || q.days.map((d) => d.slice(0, 3).toLowerCase()).includes(DAYS[day]);
}

/** Whether `at` is inside the quiet hours (a window that starts on an allowed day, running past midnight included). */
export function inQuietHours(q: QuietHours, at: Date): boolean {
  const start = minutes(q.start);
  const end = minutes(q.end);
  if (start === null || end === null || start === end) return false;
  const { day, minute } = localTime(at, q.timezone || 'UTC');
  if (start < end) return dayAllowed(q, day) && minute >= start && minute < end;
  if (minute >= start) return dayAllowed(q, day);
  return minute < end && dayAllowed(q, (day + 6) % 7);
}

/** When the quiet hours holding `at` end (stepping by minutes; at most a day ahead). */
export function quietHoursEnd(q: QuietHours, at: Date): Date {
  const t = new Date(at.getTime() - (at.getTime() % 60_000) + 60_000);
  for (let i = 0; i < 24 * 60 && inQuietHours(q, t); i++) t.setTime(t.getTime() + 60_000);
  return t;
}

/** Parses the column; null when absent or malformed (not quiet). */
export function quietHoursOf(v: unknown): QuietHours | null {
  if (!v || typeof v !== 'object') return null;
  const q = v as Partial<QuietHours>;
  return typeof q.start === 'string' && typeof q.end === 'string' ? (q as QuietHours) : null;
}

/** Holds the send when quiet now and the exception (if any) is not true; a failing exception holds. */
export function holdUntil(q: QuietHours | null, env: Record<string, unknown>, at = new Date()): Date | null {
  if (!q || !inQuietHours(q, at)) return null;
  if (q.except) {
    try {
      if (evalCel(q.except, env) === true) return null;
    } catch {
      // a broken exception holds: quiet means quiet
    }
  }
  return quietHoursEnd(q, at);
}
