import { useCallback, useMemo } from 'react';
import {
  MAPPED_RANGE_KEYS,
  mappedRange,
  rangeMinutes,
  timeRangeFromParams,
  timeRangeToParams,
  type MappedRangeKey,
  type TimeRange,
} from '../../lib/time-range';
import { useSearchPatch } from '../../lib/url-state';

/** Spec 000 §2: with no last run to go by, the second preset (1 hour). */
export const DEFAULT_HEALTH_RANGE = mappedRange(MAPPED_RANGE_KEYS[1]);

/**
 * Spec 000 §2: "timeRange defaults from the age of the last run, otherwise the second preset". Read as: the default
 * window must reach back to the newest run, so a fleet whose checks last ran 2 days ago opens on the smallest preset
 * that covers 2 days (3d) instead of an empty hour; a fleet that ran within the hour keeps the second preset (never
 * narrower: 15 minutes would hide most of the uptime history a live fleet has). Null when the second preset covers it
 * or nothing ever ran.
 */
export function defaultRangeForLastRun(lastRuns: Iterable<string | null | undefined>, now: number = Date.now()): MappedRangeKey | null {
  let newest = 0;
  for (const t of lastRuns) {
    const ms = t ? Date.parse(t) : NaN;
    if (ms > newest) newest = ms;
  }
  if (!newest) return null;
  const ageMinutes = (now - newest) / 60_000;
  if (ageMinutes <= rangeMinutes(DEFAULT_HEALTH_RANGE)) return null;
  return MAPPED_RANGE_KEYS.find((k) => rangeMinutes(mappedRange(k)) >= ageMinutes) ?? MAPPED_RANGE_KEYS[MAPPED_RANGE_KEYS.length - 1];
}

/** The mapped key (`1h`, `3mo`) a range stands for, if it is one: `Last 1 hour` from the picker is `1h`. */
export function mappedKeyOf(range: TimeRange): MappedRangeKey | null {
  if (range.type === 'mapped') return range.range;
  if (range.type !== 'relative' || range.to !== 'now') return null;
  const m = /^now-(\d+)(m|h|d|w|M|y)$/.exec(range.from.replace(/\s+/g, ''));
  if (!m) return null;
  const key = `${m[1]}${m[2] === 'M' ? 'mo' : m[2]}`;
  return (MAPPED_RANGE_KEYS as readonly string[]).includes(key) ? (key as MappedRangeKey) : null;
}

/** The summary/history window for a range: its mapped key, else its length in minutes (counted back from now). */
export function windowOf(range: TimeRange): string {
  return mappedKeyOf(range) ?? `${Math.max(1, Math.round(rangeMinutes(range)))}m`;
}

/**
 * The health page's range in the URL: `timeRange=1h` for the spec's mapped ranges (the form a shared link uses),
 * the time-range parameters for anything else the picker offers.
 */
export function useHealthTimeRange(): [TimeRange, (range: TimeRange, options?: { replace?: boolean }) => void, boolean] {
  const [params, patch] = useSearchPatch();
  const range = useMemo(() => timeRangeFromParams(params, DEFAULT_HEALTH_RANGE), [params]);
  // whether the URL names a range (a shared link, the user's choice) or the default applies
  const explicit = params.has('timeRange') || params.has('rangeType');
  const set = useCallback(
    (next: TimeRange, options?: { replace?: boolean }) => {
      const key = mappedKeyOf(next);
      const cleared = Object.fromEntries(Object.keys(timeRangeToParams(next)).map((k) => [k, undefined]));
      patch(key ? { ...cleared, timeRange: key } : { ...timeRangeToParams(next), timeRange: undefined }, { replace: options?.replace ?? false });
    },
    [patch],
  );
  return [range, set, explicit];
}
