/**
 * Go's time layouts (the reference time Mon Jan 2 15:04:05 MST 2006 written in the wanted form), for the reference's
 * CEL `time.Parse` and its templates' `time` values (gomplate funcs/time.go): parsing and formatting. Zone names other
 * than UTC/GMT/Z are read as UTC (Go does the same for an abbreviation it does not know); a numeric offset is applied.
 * Times are formatted in UTC, the zone the server runs in.
 */

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

type Field = 'year' | 'year2' | 'month' | 'monthName' | 'day' | 'yday' | 'hour' | 'hour12' | 'minute' | 'second' | 'frac' | 'ampm' | 'offset' | 'zone' | 'skip';

// longest first, as Go's nextStdChunk matches them
const TOKENS: Array<[string, string, Field]> = [
  ['January', `(${MONTHS.join('|')})`, 'monthName'], ['Monday', `(?:${DAYS.join('|')})`, 'skip'],
  ['Z07:00', '(Z|[+-]\\d\\d:\\d\\d)', 'offset'], ['-07:00', '([+-]\\d\\d:\\d\\d)', 'offset'],
  ['Z0700', '(Z|[+-]\\d{4})', 'offset'], ['-0700', '([+-]\\d{4})', 'offset'], ['Z07', '(Z|[+-]\\d\\d)', 'offset'], ['-07', '([+-]\\d\\d)', 'offset'],
  ['2006', '(\\d{4})', 'year'], ['Jan', `(${MONTHS.map((m) => m.slice(0, 3)).join('|')})`, 'monthName'],
  ['Mon', `(?:${DAYS.map((d) => d.slice(0, 3)).join('|')})`, 'skip'], ['MST', '([A-Z]{3,5})', 'zone'],
  ['002', '(\\d{3})', 'yday'], ['_2', ' ?(\\d{1,2})', 'day'], ['01', '(\\d\\d)', 'month'], ['02', '(\\d\\d)', 'day'],
  ['03', '(\\d\\d)', 'hour12'], ['04', '(\\d\\d)', 'minute'], ['05', '(\\d\\d)', 'second'], ['06', '(\\d\\d)', 'year2'],
  ['15', '(\\d\\d?)', 'hour'], ['PM', '(AM|PM)', 'ampm'], ['pm', '(am|pm)', 'ampm'],
  ['1', '(\\d\\d?)', 'month'], ['2', '(\\d\\d?)', 'day'], ['3', '(\\d\\d?)', 'hour12'], ['4', '(\\d\\d?)', 'minute'], ['5', '(\\d\\d?)', 'second'],
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Parses `value` with a Go layout; throws with Go's message shape when it does not match. */
export function goTimeParse(layout: string, value: string): Date {
  let re = '^';
  const fields: Field[] = [];
  for (let i = 0; i < layout.length;) {
    // fractional seconds: ,000 or .000 (exact digits) and .999 (optional digits)
    const frac = /^[.,](0+|9+)(?![0-9])/.exec(layout.slice(i));
    if (frac && /[0-9]$/.test(layout.slice(0, i))) {
      re += frac[1][0] === '0' ? `[.,](\\d{${frac[1].length}})` : '(?:[.,](\\d+))?';
      fields.push('frac');
      i += frac[0].length;
      continue;
    }
    const tok = TOKENS.find(([t]) => layout.startsWith(t, i));
    if (tok) {
      re += tok[1];
      // Go also accepts fractional seconds after a seconds field whose layout has none
      if (tok[2] === 'second' && !/^[.,][09]/.test(layout.slice(i + tok[0].length))) re += '(?:[.,]\\d+)?';
      if (tok[2] !== 'skip') fields.push(tok[2]);
      i += tok[0].length;
    } else {
      re += escape(layout[i]);
      i++;
    }
  }
  const m = new RegExp(`${re}$`).exec(value);
  if (!m) throw new Error(`parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}: cannot parse`);
  const t = { year: 0, month: 1, day: 1, hour: 0, minute: 0, second: 0, ms: 0, offset: 0, pm: undefined as boolean | undefined, yday: 0 };
  fields.forEach((f, idx) => {
    const v = m[idx + 1];
    if (v === undefined) return;
    switch (f) {
      case 'year': t.year = Number(v); break;
      case 'year2': t.year = Number(v) + (Number(v) >= 69 ? 1900 : 2000); break;
      case 'month': t.month = Number(v); break;
      case 'monthName': t.month = MONTHS.findIndex((n) => n.startsWith(v)) + 1; break;
      case 'day': t.day = Number(v); break;
      case 'yday': t.yday = Number(v); break;
      case 'hour':
      case 'hour12': t.hour = Number(v); break;
      case 'minute': t.minute = Number(v); break;
      case 'second': t.second = Number(v); break;
      case 'frac': t.ms = Number(`0.${v}`) * 1000; break;
      case 'ampm': t.pm = v.toUpperCase() === 'PM'; break;
      case 'offset': t.offset = v === 'Z' ? 0 : (v[0] === '-' ? -1 : 1) * (Number(v.slice(1, 3)) * 60 + Number(v.replace(':', '').slice(3, 5) || 0)); break;
      default: break;
    }
  });
  if (t.pm !== undefined) t.hour = (t.hour % 12) + (t.pm ? 12 : 0);
  if (t.month < 1 || t.month > 12 || t.day < 1 || t.day > 31 || t.hour > 23 || t.minute > 59 || t.second > 59) {
    throw new Error(`parsing time ${JSON.stringify(value)}: value out of range`);
  }
  const base = t.yday ? Date.UTC(t.year, 0, t.yday) : Date.UTC(t.year, t.month - 1, t.day);
  return new Date(base + ((t.hour * 60 + t.minute - t.offset) * 60 + t.second) * 1000 + Math.round(t.ms));
}

const pad = (n: number, w = 2, c = '0') => String(n).padStart(w, c);

/** Go's Time.Format(layout) of a time in UTC. */
export function goTimeFormat(d: Date, layout: string): string {
  let out = '';
  for (let i = 0; i < layout.length;) {
    const frac = /^[.,](0+|9+)(?![0-9])/.exec(layout.slice(i));
    if (frac && /[0-9]$/.test(layout.slice(0, i))) {
      const digits = String(d.getUTCMilliseconds()).padStart(3, '0').padEnd(frac[1].length, '0').slice(0, frac[1].length);
      out += frac[1][0] === '0' ? `${frac[0][0]}${digits}` : digits.replace(/0+$/, '') ? `${frac[0][0]}${digits.replace(/0+$/, '')}` : '';
      i += frac[0].length;
      continue;
    }
    const tok = TOKENS.find(([t]) => layout.startsWith(t, i));
    if (!tok) {
      out += layout[i];
      i++;
      continue;
    }
    const h = d.getUTCHours();
    const yday = Math.floor((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
    const values: Record<string, string> = {
      January: MONTHS[d.getUTCMonth()], Monday: DAYS[d.getUTCDay()], Jan: MONTHS[d.getUTCMonth()].slice(0, 3), Mon: DAYS[d.getUTCDay()].slice(0, 3),
      'Z07:00': 'Z', '-07:00': '+00:00', Z0700: 'Z', '-0700': '+0000', Z07: 'Z', '-07': '+00', MST: 'UTC',
      2006: String(d.getUTCFullYear()), '06': pad(d.getUTCFullYear() % 100), '01': pad(d.getUTCMonth() + 1), 1: String(d.getUTCMonth() + 1),
      '02': pad(d.getUTCDate()), 2: String(d.getUTCDate()), _2: pad(d.getUTCDate(), 2, ' '), '002': pad(yday, 3),
      15: pad(h), '03': pad(h % 12 || 12), 3: String(h % 12 || 12), '04': pad(d.getUTCMinutes()), 4: String(d.getUTCMinutes()),
      '05': pad(d.getUTCSeconds()), 5: String(d.getUTCSeconds()), PM: h < 12 ? 'AM' : 'PM', pm: h < 12 ? 'am' : 'pm',
    };
    out += values[tok[0]];
    i += tok[0].length;
  }
  return out;
}
