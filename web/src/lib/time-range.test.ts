import { describe, expect, it } from 'vitest';
import {
  absoluteRange,
  DEFAULT_TIME_RANGE,
  FUTURE_PRESETS,
  isRelativeExpression,
  loadRecentRanges,
  MAPPED_RANGE_KEYS,
  mappedRange,
  parseTimeExpression,
  PAST_PRESETS,
  rangeMinutes,
  rememberRecentRange,
  resolveTimeRange,
  timeRangeFromParams,
  timeRangeToParams,
} from './time-range';

// Wednesday 18 March 2026, 10:30:15.500 local time
const now = new Date(2026, 2, 18, 10, 30, 15, 500);
const local = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0) => new Date(y, mo, d, h, mi, s, ms);

class MemoryStorage {
  private m = new Map<string, string>();
  getItem(k: string) {
    return this.m.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.m.set(k, v);
  }
}

describe('relative expressions', () => {
  it('adds and subtracts every unit', () => {
    expect(parseTimeExpression('now', now)).toEqual(now);
    expect(parseTimeExpression('now-2d', now)).toEqual(local(2026, 2, 16, 10, 30, 15, 500));
    expect(parseTimeExpression('now+30m', now)).toEqual(local(2026, 2, 18, 11, 0, 15, 500));
    expect(parseTimeExpression('now-500ms', now)).toEqual(local(2026, 2, 18, 10, 30, 15, 0));
    expect(parseTimeExpression('now-15s', now)).toEqual(local(2026, 2, 18, 10, 30, 0, 500));
    expect(parseTimeExpression('now-3h', now)).toEqual(local(2026, 2, 18, 7, 30, 15, 500));
    expect(parseTimeExpression('now-1w', now)).toEqual(local(2026, 2, 11, 10, 30, 15, 500));
    expect(parseTimeExpression('now-1M', now)).toEqual(local(2026, 1, 18, 10, 30, 15, 500));
    expect(parseTimeExpression('now+1y', now)).toEqual(local(2027, 2, 18, 10, 30, 15, 500));
    expect(parseTimeExpression('now-1d+2h', now)).toEqual(local(2026, 2, 17, 12, 30, 15, 500));
  });

  it('tells minutes (m) from months (M)', () => {
    expect(parseTimeExpression('now-1m', now).getMonth()).toBe(2);
    expect(parseTimeExpression('now-1M', now).getMonth()).toBe(1);
  });

  it('rounds down with /unit, and up to the end of the unit for the end of a range', () => {
    expect(parseTimeExpression('now-1h/h', now)).toEqual(local(2026, 2, 18, 9, 0, 0, 0));
    expect(parseTimeExpression('now/d', now)).toEqual(local(2026, 2, 18, 0, 0, 0, 0));
    expect(parseTimeExpression('now/d', now, true)).toEqual(local(2026, 2, 18, 23, 59, 59, 999));
    // weeks start on Monday
    expect(parseTimeExpression('now/w', now)).toEqual(local(2026, 2, 16));
    expect(parseTimeExpression('now/M', now)).toEqual(local(2026, 2, 1));
    expect(parseTimeExpression('now/y', now)).toEqual(local(2026, 0, 1));
    expect(parseTimeExpression('now-1M/M', now, true)).toEqual(local(2026, 1, 28, 23, 59, 59, 999));
  });

  it('"Yesterday" covers the whole of yesterday', () => {
    const r = resolveTimeRange({ type: 'relative', display: 'Yesterday', from: 'now-1d/d', to: 'now-1d/d' }, now);
    expect(r.from).toEqual(local(2026, 2, 17));
    expect(r.to).toEqual(local(2026, 2, 17, 23, 59, 59, 999));
  });

  it('rejects what is not an expression', () => {
    for (const bad of ['', 'now-', 'now-2', 'now-2x', 'now*2d', 'yesterday', 'now-1D', '2d']) {
      expect(isRelativeExpression(bad), bad).toBe(false);
      expect(() => parseTimeExpression(bad, now), bad).toThrow();
    }
    expect(isRelativeExpression('now - 2d')).toBe(true);
  });
});

describe('mapped ranges', () => {
  it('covers the lookup from 15m to 5y', () => {
    expect(MAPPED_RANGE_KEYS).toEqual([
      '15m', '1h', '2h', '3h', '6h', '12h', '1d', '2d', '3d', '1w', '2w', '3w',
      '1mo', '2mo', '3mo', '6mo', '1y', '2y', '3y', '5y',
    ]);
    expect(mappedRange('15m').display).toBe('Last 15 minutes');
    expect(mappedRange('1mo').display).toBe('Last 1 month');
    expect(rangeMinutes(mappedRange('3h'), now)).toBe(180);
    expect(resolveTimeRange(mappedRange('2mo'), now).from).toEqual(local(2026, 0, 18, 10, 30, 15, 500));
  });

  it('refuses an unknown key with "Invalid mapped time range"', () => {
    expect(() => mappedRange('4h')).toThrow('Invalid mapped time range');
    expect(() => mappedRange('')).toThrow('Invalid mapped time range');
  });
});

describe('presets and defaults', () => {
  it('defaults to the relative last 2 days', () => {
    expect(DEFAULT_TIME_RANGE).toEqual({ type: 'relative', display: 'Last 2 days', from: 'now-2d', to: 'now' });
  });

  it('offers past and future presets from 5 minutes to 5 years', () => {
    expect(PAST_PRESETS[0]).toMatchObject({ display: 'Last 5 minutes', from: 'now-5m', to: 'now' });
    expect(PAST_PRESETS.at(-1)).toMatchObject({ display: 'Last 5 years', from: 'now-5y' });
    expect(FUTURE_PRESETS[0]).toMatchObject({ display: 'Next 5 minutes', from: 'now', to: 'now+5m' });
    for (const p of [...PAST_PRESETS, ...FUTURE_PRESETS]) {
      expect(isRelativeExpression(p.from) && isRelativeExpression(p.to), p.display).toBe(true);
    }
  });
});

describe('URL parameters', () => {
  it('round-trips every kind through rangeType, display, from, to and range', () => {
    const abs = absoluteRange(local(2026, 2, 1), local(2026, 2, 2));
    for (const range of [DEFAULT_TIME_RANGE, mappedRange('6h'), abs]) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(timeRangeToParams(range))) if (v !== undefined) params.set(k, v);
      expect(timeRangeFromParams(params)).toEqual(range);
    }
    expect(timeRangeToParams(abs)).toMatchObject({ rangeType: 'absolute', display: 'Custom', range: undefined });
  });

  it('reads the health page timeRange=1h as a mapped range', () => {
    expect(timeRangeFromParams(new URLSearchParams('timeRange=1h'))).toEqual(mappedRange('1h'));
  });

  it('falls back to the default on junk', () => {
    for (const q of ['', 'rangeType=mapped&range=7h', 'rangeType=relative&from=yesterday', 'rangeType=absolute&from=x&to=y']) {
      expect(timeRangeFromParams(new URLSearchParams(q)), q).toEqual(DEFAULT_TIME_RANGE);
    }
  });
});

describe('recent absolute ranges', () => {
  it('keeps the last 5, newest first, without duplicates', () => {
    const storage = new MemoryStorage() as unknown as Storage;
    const ranges = Array.from({ length: 7 }, (_, i) => absoluteRange(local(2026, 0, i + 1), local(2026, 0, i + 2)));
    for (const r of ranges) rememberRecentRange(r, storage);
    rememberRecentRange(ranges[4], storage);
    const recent = loadRecentRanges(storage);
    expect(recent).toHaveLength(5);
    expect(recent[0]).toEqual(ranges[4]);
    expect(recent.map((r) => r.from)).toEqual([4, 6, 5, 3, 2].map((i) => ranges[i].from));
  });

  it('reads corrupt storage as empty', () => {
    const storage = new MemoryStorage() as unknown as Storage;
    storage.setItem('timeRangePicker.recentAbsolute', '{not json');
    expect(loadRecentRanges(storage)).toEqual([]);
  });
});
