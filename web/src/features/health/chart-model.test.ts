import { describe, expect, it } from 'vitest';
import type uPlot from 'uplot';
import { buildChartData, buildChartOptions, durationMs, windowBefore } from './chart-model';

const NOW = Date.parse('2026-11-24T12:00:30Z');
const HOUR = windowBefore('1h', NOW);
const point = (time: string, duration: number, failed = 0) => ({ time, duration, passed: failed ? 0 : 1, failed });

describe('health chart model', () => {
  it('reads durations as the server does', () => {
    expect(durationMs('90m')).toBe(5_400_000);
    expect(durationMs('1mo')).toBe(30 * 86_400_000);
    expect(durationMs('soon')).toBeNaN();
    expect(HOUR).toEqual({ from: NOW - 3_600_000, to: NOW });
  });

  it('pins the x scale to the window and keeps gaps as gaps', () => {
    const opts = buildChartOptions(HOUR, 600, 180);
    const x = opts.scales!.x!;
    expect(x.auto).toBe(false);
    const range = x.range as (u: uPlot, min: number, max: number) => [number, number];
    // whatever the data's extent (one point, or two minutes of points), the axis is the hour
    expect(range(null as unknown as uPlot, NOW / 1000 - 60, NOW / 1000 - 60)).toEqual([HOUR.from / 1000, HOUR.to / 1000]);
    expect(opts.series.slice(1).map((s) => s.spanGaps)).toEqual([false, false, false]);
    expect(opts.cursor?.sync?.key).toBeTruthy();
    expect(opts.legend?.live).toBe(true);
  });

  it('lays one x per bucket across the window, null where a bucket has no result', () => {
    const { data, hasPoints } = buildChartData(
      [point('2026-11-24T11:58:00Z', 120), point('2026-11-24T12:00:00Z', 300, 1)],
      HOUR,
      60,
    );
    const [xs, latency, ok, bad] = data as [number[], (number | null)[], (number | null)[], (number | null)[]];
    expect(hasPoints).toBe(true);
    expect(xs.length).toBe(61);
    expect(xs[0]).toBe(HOUR.from / 1000);
    expect(xs[xs.length - 1]).toBe(Date.parse('2026-11-24T12:00:00Z') / 1000);
    expect(xs.every((x) => x >= HOUR.from / 1000 && x <= HOUR.to / 1000)).toBe(true);
    expect(latency.filter((v) => v !== null)).toEqual([120, 300]);
    expect(latency[58]).toBe(120);
    expect(latency[59]).toBeNull();
    expect(ok[58]).toBe(120);
    expect(bad[60]).toBe(300);
    expect(ok[60]).toBeNull();
  });

  it('has no point when no result falls in the window', () => {
    expect(buildChartData([], HOUR, 60).hasPoints).toBe(false);
    const outside = buildChartData([point('2029-07-01T00:00:00Z', 50), point('2026-11-24T10:00:00Z', 50)], HOUR, 60);
    expect(outside.hasPoints).toBe(false);
    expect((outside.data[1] as (number | null)[]).every((v) => v === null)).toBe(true);
  });
});
