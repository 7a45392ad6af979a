import { describe, expect, it } from 'vitest';
import { defaultRangeForLastRun } from './time-window';

describe('the health page default range from the age of the last run', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');
  const ago = (minutes: number) => new Date(now - minutes * 60_000).toISOString();

  it('keeps the second preset when nothing ran or the newest run is within the hour', () => {
    expect(defaultRangeForLastRun([], now)).toBeNull();
    expect(defaultRangeForLastRun([null, undefined], now)).toBeNull();
    expect(defaultRangeForLastRun([ago(1), ago(3000)], now)).toBeNull();
    expect(defaultRangeForLastRun([ago(60)], now)).toBeNull();
  });

  it('widens to the smallest preset that reaches back to the newest run', () => {
    expect(defaultRangeForLastRun([ago(61)], now)).toBe('2h');
    expect(defaultRangeForLastRun([ago(2 * 24 * 60 + 5), null, ago(10 * 24 * 60)], now)).toBe('3d');
    expect(defaultRangeForLastRun([ago(8 * 24 * 60)], now)).toBe('2w');
    expect(defaultRangeForLastRun([ago(6 * 365 * 24 * 60)], now)).toBe('5y');
  });
});
