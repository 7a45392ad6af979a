import { describe, expect, it } from 'vitest';
import { effectiveRefreshRate, isRefreshRateAllowed, loadRefreshRate, REFRESH_RATES, saveRefreshRate } from './refresh-rate';

const allowed = (minutes: number) => REFRESH_RATES.filter((r) => isRefreshRateAllowed(r.value, minutes)).map((r) => r.label);

describe('refresh rates', () => {
  it('offers None, 15s, 30s, 1m, 2m, 3m, 5m, 10m, 15m', () => {
    expect(REFRESH_RATES.map((r) => r.label)).toEqual(['None', '15s', '30s', '1m', '2m', '3m', '5m', '10m', '15m']);
  });

  it('allows everything under 60 minutes', () => {
    expect(allowed(59)).toHaveLength(9);
  });

  it('turns 15s and 30s off from 60 minutes', () => {
    expect(allowed(60)).toEqual(['None', '1m', '2m', '3m', '5m', '10m', '15m']);
    expect(allowed(179)).toEqual(['None', '1m', '2m', '3m', '5m', '10m', '15m']);
  });

  it('turns 2m and 3m off too from 180 minutes', () => {
    expect(allowed(180)).toEqual(['None', '1m', '5m', '10m', '15m']);
    expect(allowed(60 * 24 * 365)).toEqual(['None', '1m', '5m', '10m', '15m']);
  });

  it('polls at the next longer allowed interval when the range rules out the chosen one', () => {
    expect(effectiveRefreshRate(15_000, 120)).toBe(60_000);
    expect(effectiveRefreshRate(120_000, 200)).toBe(300_000);
    expect(effectiveRefreshRate(120_000, 30)).toBe(120_000);
  });

  it('saves the choice locally and ignores junk', () => {
    const m = new Map<string, string>();
    const storage = { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) } as Storage;
    expect(loadRefreshRate('health', storage)).toBe(0);
    saveRefreshRate(300_000, 'health', storage);
    expect(loadRefreshRate('health', storage)).toBe(300_000);
    m.set('health', '12345');
    expect(loadRefreshRate('health', storage)).toBe(0);
  });
});
