/** Auto-refresh intervals (spec 000 §9, spec 001 §9). `0` is "None". */
export const REFRESH_RATES = [
  { value: 0, label: 'None' },
  { value: 15_000, label: '15s' },
  { value: 30_000, label: '30s' },
  { value: 60_000, label: '1m' },
  { value: 120_000, label: '2m' },
  { value: 180_000, label: '3m' },
  { value: 300_000, label: '5m' },
  { value: 600_000, label: '10m' },
  { value: 900_000, label: '15m' },
] as const;

export type RefreshRate = (typeof REFRESH_RATES)[number]['value'];
const isRefreshRate = (v: number): v is RefreshRate => REFRESH_RATES.some((r) => r.value === v);

export const REFRESH_RATE_STORAGE_KEY = 'refreshRate';

/**
 * Whether an interval may be chosen for a range of `rangeMinutes` (spec 001 §9): from 60 minutes on, 15s and 30s
 * are off; from 180 minutes on, 2m and 3m are off too. (1m stays on at 180+: that is what the spec lists.)
 */
export function isRefreshRateAllowed(rate: number, rangeMinutes: number | undefined): boolean {
  if (rangeMinutes === undefined || rate === 0) return true;
  if (rangeMinutes >= 60 && (rate === 15_000 || rate === 30_000)) return false;
  if (rangeMinutes >= 180 && (rate === 120_000 || rate === 180_000)) return false;
  return true;
}

/**
 * The interval to actually poll with: the chosen one, or (when a wider range made it unavailable) the next longer
 * allowed one, so widening the range never silently stops the refresh.
 */
export function effectiveRefreshRate(rate: number, rangeMinutes: number | undefined): number {
  if (isRefreshRateAllowed(rate, rangeMinutes)) return rate;
  return REFRESH_RATES.find((r) => r.value > rate && isRefreshRateAllowed(r.value, rangeMinutes))?.value ?? 0;
}

export function refreshRateLabel(rate: number): string {
  return REFRESH_RATES.find((r) => r.value === rate)?.label ?? 'None';
}

/** The locally saved interval for `key` (one per page), or None. */
export function loadRefreshRate(key = REFRESH_RATE_STORAGE_KEY, storage = globalThis.localStorage): RefreshRate {
  try {
    const rate = Number(storage?.getItem(key));
    return isRefreshRate(rate) ? rate : 0;
  } catch {
    return 0;
  }
}

export function saveRefreshRate(rate: RefreshRate, key = REFRESH_RATE_STORAGE_KEY, storage = globalThis.localStorage): void {
  try {
    storage?.setItem(key, String(rate));
  } catch {
    // storage unavailable: the choice lasts for this page only
  }
}
