/**
 * The one way a duration in milliseconds is written, by the server (check messages and errors) and by the web (every
 * table, chart and toast): under 1000 ms in ms ("850ms", "2.3ms" and "0.51ms" under 10 ms, where ping times live),
 * under 60 s in seconds ("1.5s"), then minutes ("5m 30s"), then hours ("2h 5m"). The unit is part of the text: callers
 * never append one. Pure, no imports: both sides load it.
 */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '';
  const sign = ms < 0 ? '-' : '';
  const v = Math.abs(ms);
  if (v < SECOND) return `${sign}${trim(v, v < 10 ? 2 : 0)}ms`;
  if (v < MINUTE) return `${sign}${trim(v / SECOND, 2)}s`;
  if (v < HOUR) {
    const m = Math.floor(v / MINUTE);
    const s = Math.floor((v % MINUTE) / SECOND);
    return `${sign}${m}m${s ? ` ${s}s` : ''}`;
  }
  const h = Math.floor(v / HOUR);
  const m = Math.floor((v % HOUR) / MINUTE);
  return `${sign}${h}h${m ? ` ${m}m` : ''}`;
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

// 1.50 -> "1.5", 2.00 -> "2": trailing zeros are noise
function trim(n: number, digits: number): string {
  return String(Number(n.toFixed(digits)));
}
