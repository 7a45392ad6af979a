/**
 * Times of a silence (issue 15 "Silences"): RFC 3339 (or any ISO 8601 date-time), or Grafana-style date math relative
 * to now: `now`, `now+2h`, `now-1d`, `now+1w2d`, `now-1d/d` (rounded down to the unit: the start of that day, UTC).
 * Units: s, m (minute), h, d, w, M (month), y. Null when the text is neither.
 */

const UNIT = /^([+-])(\d+)(s|m|h|d|w|M|y)/;

export function parseTimeExpr(text: string, now: Date = new Date()): Date | null {
  const t = text.trim();
  if (!t.startsWith('now')) {
    if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i.test(t)) return null;
    const ms = Date.parse(t);
    return Number.isNaN(ms) ? null : new Date(ms);
  }
  let rest = t.slice(3).replace(/\s+/g, '');
  const d = new Date(now.getTime());
  while (rest && rest[0] !== '/') {
    const m = UNIT.exec(rest);
    if (!m) return null;
    add(d, (m[1] === '-' ? -1 : 1) * Number(m[2]), m[3]);
    rest = rest.slice(m[0].length);
    // `now+1w2d`: further units share the sign
    while (rest && /^\d/.test(rest)) {
      const n = /^(\d+)(s|m|h|d|w|M|y)/.exec(rest);
      if (!n) return null;
      add(d, (m[1] === '-' ? -1 : 1) * Number(n[1]), n[2]);
      rest = rest.slice(n[0].length);
    }
  }
  if (rest) {
    const r = /^\/(s|m|h|d|w|M|y)$/.exec(rest);
    if (!r) return null;
    roundDown(d, r[1]);
  }
  return d;
}

function add(d: Date, n: number, unit: string): void {
  switch (unit) {
    case 's': d.setTime(d.getTime() + n * 1_000); break;
    case 'm': d.setTime(d.getTime() + n * 60_000); break;
    case 'h': d.setTime(d.getTime() + n * 3_600_000); break;
    case 'd': d.setTime(d.getTime() + n * 86_400_000); break;
    case 'w': d.setTime(d.getTime() + n * 604_800_000); break;
    case 'M': d.setUTCMonth(d.getUTCMonth() + n); break;
    case 'y': d.setUTCFullYear(d.getUTCFullYear() + n); break;
  }
}

function roundDown(d: Date, unit: string): void {
  if (unit === 's') d.setUTCMilliseconds(0);
  if (unit === 'm') d.setUTCSeconds(0, 0);
  if (unit === 'h') d.setUTCMinutes(0, 0, 0);
  if (unit === 'd' || unit === 'w' || unit === 'M' || unit === 'y') d.setUTCHours(0, 0, 0, 0);
  if (unit === 'w') d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  if (unit === 'M') d.setUTCDate(1);
  if (unit === 'y') d.setUTCMonth(0, 1);
}
