import { describe, expect, it } from 'vitest';
import { bucketsToSegments, summariseSegments } from './segments';

const H = 3600_000;
const from = Date.parse('2026-11-19T00:00:00Z');
const now = from + 7 * 24 * H;
const iso = (ms: number) => new Date(ms).toISOString();

describe('bucketsToSegments', () => {
  it('merges equal neighbours, ends each bucket at the next, the last at now, and sizes each by its share', () => {
    const buckets = [
      { start: iso(from), status: 'healthy' },
      { start: iso(from + 6 * H), status: 'healthy' },
      { start: iso(from + 12 * H), status: 'unhealthy' },
      { start: iso(from + 18 * H), status: 'healthy' },
    ];
    const segs = bucketsToSegments(buckets, from, now);
    expect(segs.map((s) => [s.status, s.color, (s.end - s.start) / H])).toEqual([
      ['healthy', 'green', 12],
      ['unhealthy', 'red', 6],
      ['healthy', 'green', 7 * 24 - 18],
    ]);
    expect(segs.reduce((t, s) => t + s.fraction, 0)).toBeCloseTo(1);
  });

  it('has no data before the first bucket or in a bucket before the component existed, clips a bucket that began before the window, and drops ones after now', () => {
    const segs = bucketsToSegments(
      [
        { start: iso(from + 24 * H), status: 'warning' },
        { start: iso(from - 48 * H), status: 'healthy' },
        { start: iso(now + H), status: 'unhealthy' },
      ],
      from,
      now,
    );
    expect(segs.map((s) => [s.status, s.color, s.start, s.end])).toEqual([
      ['healthy', 'green', from, from + 24 * H],
      ['warning', 'orange', from + 24 * H, now],
    ]);
    expect(bucketsToSegments([], from, now)).toMatchObject([{ status: 'no data', color: 'none', fraction: 1 }]);
    const created = bucketsToSegments([{ start: iso(from), status: null }, { start: iso(from + 6 * H), status: 'unknown' }], from, now);
    expect(created.map((s) => [s.status, s.color])).toEqual([['no data', 'none'], ['unknown', 'gray']]);
  });

  it('summarises the time in each status, longest first', () => {
    const segs = bucketsToSegments([{ start: iso(from), status: 'healthy' }, { start: iso(now - 4 * H), status: 'unhealthy' }], from, now);
    expect(summariseSegments(segs)).toBe('healthy 164h, unhealthy 4h');
  });
});
