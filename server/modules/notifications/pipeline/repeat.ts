/**
 * Repeat intervals and the other durations of a rule. `repeat_interval` is text as the reference stores it ("1h",
 * "1d", "1w"; "1m" is a minute, as the reference parses it); wait_for and group_by_interval are nanoseconds.
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Milliseconds of a duration text ("1h", "90m", "1h30m", "1d"); null when empty or malformed. */
export function intervalMs(text: string | null | undefined): number | null {
  if (!text) return null;
  const parts = [...text.trim().matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== text.trim()) return null;
  const ms = parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]], 0);
  return ms > 0 ? ms : null;
}

/** Milliseconds of a nanosecond column (bigint as text from pg); null when unset or zero. */
export function nsToMs(ns: string | number | null | undefined): number | null {
  if (ns === null || ns === undefined) return null;
  const ms = Math.round(Number(ns) / 1e6);
  return ms > 0 ? ms : null;
}
