const DURATION_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  y: 365 * 86_400_000,
};

/**
 * Milliseconds of a Go-style duration with the reference's day/week/year units: `90s`, `1h30m`, `2d`, `1w`,
 * `1.5h`. Undefined when the text is not a duration.
 */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h|d|w|y)/y;
  let pos = 0;
  let total = 0;
  const sign = s.startsWith('-') ? -1 : 1;
  if (s[0] === '-' || s[0] === '+') pos = 1;
  if (pos >= s.length) return undefined;
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) return undefined;
    total += Number(m[1]) * DURATION_UNITS[m[2]];
    pos = re.lastIndex;
  }
  return sign * total;
}

// power of 1024 per unit letter
const SIZE_UNITS: Record<string, number> = { '': 0, k: 1, m: 2, g: 3, t: 4, p: 5, e: 6 };

/**
 * Bytes of a size as the reference writes it (c2h5oh/datasize: 1024-based `10kb`, `5MB`, `1G`, also `1MiB`);
 * a number is bytes. Undefined when the text is not a size.
 */
export function parseSize(v: string | number): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? v : undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgtpe]?)(?:i?b)?\s*$/i.exec(v);
  if (!m) return undefined;
  return Math.round(Number(m[1]) * 1024 ** SIZE_UNITS[m[2].toLowerCase()]);
}

const MATH_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, H: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/**
 * A point in time: RFC 3339 (a time without zone is UTC, as Go parses it) or date math relative to `now`
 * (`now-1h`, `now-7d`, `now-1d/d` rounds down to the start of the UTC day; `M`/`y` are calendar months/years).
 */
export function parseTime(text: string, now = new Date()): Date | undefined {
  const s = text.trim();
  const dm = /^now((?:[+-]\d+[smhHdwMy])*)(?:\/([smhHdwMy]))?$/.exec(s);
  if (dm) {
    const t = new Date(now.getTime());
    for (const [, op, n, unit] of dm[1].matchAll(/([+-])(\d+)([smhHdwMy])/g)) {
      const k = (op === '-' ? -1 : 1) * Number(n);
      if (unit === 'M') t.setUTCMonth(t.getUTCMonth() + k);
      else if (unit === 'y') t.setUTCFullYear(t.getUTCFullYear() + k);
      else t.setTime(t.getTime() + k * MATH_UNITS[unit]);
    }
    if (dm[2]) roundDown(t, dm[2]);
    return t;
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/i.test(s)) return undefined;
  const d = new Date(/(Z|[+-]\d{2}:\d{2})$/i.test(s) ? s : `${s}Z`);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

function roundDown(t: Date, unit: string) {
  switch (unit) {
    case 'y':
      t.setUTCMonth(0, 1);
      t.setUTCHours(0, 0, 0, 0);
      break;
    case 'M':
      t.setUTCDate(1);
      t.setUTCHours(0, 0, 0, 0);
      break;
    case 'w': {
      const day = (t.getUTCDay() + 6) % 7; // weeks start on Monday
      t.setUTCDate(t.getUTCDate() - day);
      t.setUTCHours(0, 0, 0, 0);
      break;
    }
    case 'd':
      t.setUTCHours(0, 0, 0, 0);
      break;
    case 'h':
    case 'H':
      t.setUTCMinutes(0, 0, 0);
      break;
    case 'm':
      t.setUTCSeconds(0, 0);
      break;
    case 's':
      t.setUTCMilliseconds(0);
      break;
  }
}

/** `1d2h`, `3h4m`, `12s`, `850ms`: a compact age for messages. */
export function formatDuration(ms: number): string {
  const a = Math.abs(ms);
  if (a < 1000) return `${Math.round(ms)}ms`;
  const parts: string[] = [];
  let rest = Math.floor(a / 1000);
  for (const [unit, secs] of [['d', 86400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    const n = Math.floor(rest / secs);
    rest -= n * secs;
    if (n) parts.push(`${n}${unit}`);
    if (parts.length === 2) break;
  }
  return (ms < 0 ? '-' : '') + parts.join('');
}

/** `512B`, `1.5KB`, `20MB` (1024-based, as the reference prints sizes). */
export function formatSize(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : Number(v.toFixed(1))}${units[i]}`;
}
