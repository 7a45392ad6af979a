import { describe, expect, it } from 'vitest';
import { bucketSeconds, buildTimeline, GRAPH_SERIES } from './graph-model';

describe('buildTimeline', () => {
  const from = Date.parse('2026-11-24T12:00:00Z');
  const to = Date.parse('2026-11-26T12:00:00Z');

  it('counts changes per hour bucket and severity over two days, unknown severities as none', () => {
    const { data, step, plotted } = buildTimeline(
      [
        { created_at: '2026-11-26T11:10:00Z', severity: 'high' },
        { created_at: '2026-11-26T11:50:00Z', severity: 'HIGH', count: 7 },
        { created_at: '2026-11-25T00:30:00Z', severity: 'info' },
        { created_at: '2026-11-25T00:31:00Z', severity: null },
        { created_at: '2026-11-20T00:00:00Z', severity: 'critical' },
      ],
      from,
      to,
    );
    expect(step).toBe(3_600);
    expect(plotted).toBe(4);
    const xs = data[0] as number[];
    expect(xs[0]).toBe(from / 1000);
    const at = (iso: string) => xs.indexOf(Math.floor(Date.parse(iso) / 1000 / 3600) * 3600);
    const high = data[1 + GRAPH_SERIES.indexOf('high')] as number[];
    const info = data[1 + GRAPH_SERIES.indexOf('info')] as number[];
    const none = data[1 + GRAPH_SERIES.indexOf('none')] as number[];
    const critical = data[1 + GRAPH_SERIES.indexOf('critical')] as number[];
    expect(high[at('2026-11-26T11:00:00Z')]).toBe(2);
    expect(info[at('2026-11-25T00:00:00Z')]).toBe(1);
    expect(none[at('2026-11-25T00:00:00Z')]).toBe(1);
    expect(critical.every((n) => n === 0)).toBe(true);
  });

  it('widens buckets with the range', () => {
    expect(bucketSeconds(0, 3_600_000)).toBe(300);
    expect(bucketSeconds(0, 2 * 86_400_000)).toBe(3_600);
    expect(bucketSeconds(0, 30 * 86_400_000)).toBe(12 * 3_600);
  });
});
