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
export function useHealthTimeRange(): [TimeRange, (range: TimeRange) => void] {
  const [params, patch] = useSearchPatch();
  const range = useMemo(() => timeRangeFromParams(params, DEFAULT_HEALTH_RANGE), [params]);
  const set = useCallback(
    (next: TimeRange) => {
      const key = mappedKeyOf(next);
      const cleared = Object.fromEntries(Object.keys(timeRangeToParams(next)).map((k) => [k, undefined]));
      patch(key ? { ...cleared, timeRange: key } : { ...timeRangeToParams(next), timeRange: undefined }, { replace: false });
    },
    [patch],
  );
  return [range, set];
}
