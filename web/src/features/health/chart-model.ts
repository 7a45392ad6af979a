import type uPlot from 'uplot';
import type { GraphResponse } from '@contracts/health';
import { formatDuration } from '../../lib/format';

/** The instants a chart covers, in epoch milliseconds: the x scale is this whatever the data. */
export interface ChartWindow {
  from: number;
  to: number;
}

// As the server reads a duration (server/modules/health/service.ts windowMs): a month is 30 days, a year 365
const UNIT_MS: Record<string, number> = {
  ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, mo: 30 * 86_400_000, y: 365 * 86_400_000,
};

/** `1h`, `90m`, `3mo` in milliseconds; NaN for anything else. */
export function durationMs(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w|mo|y)$/.exec(text.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2]] : NaN;
}

/** The window a duration (`1h`) covers now: from now minus the duration to now. */
export function windowBefore(duration: string, now: number = Date.now()): ChartWindow {
  return { from: now - durationMs(duration), to: now };
}

/**
 * uPlot's data for a window: one x per bucket from the window's start to its end (seconds, as uPlot's time scale
 * wants), null where a bucket has no result so that the line breaks there instead of joining its neighbours.
 * Buckets start on multiples of `bucketSeconds` (as the server floors them); the first one may start before the
 * window and is drawn at the window's start. `hasPoints` is false when no result falls in the window.
 */
export function buildChartData(points: GraphResponse['status'], window: ChartWindow, bucketSeconds: number): { data: uPlot.AlignedData; hasPoints: boolean } {
  const step = Math.max(1, bucketSeconds);
  const from = window.from / 1000;
  const to = window.to / 1000;
  const first = Math.floor(from / step) * step;
  const count = to >= first ? Math.floor((to - first) / step) + 1 : 0;
  const xs: number[] = [];
  const latency: (number | null)[] = new Array(count).fill(null);
  const ok: (number | null)[] = new Array(count).fill(null);
  const bad: (number | null)[] = new Array(count).fill(null);
  for (let i = 0; i < count; i++) xs.push(Math.max(from, first + i * step));
  let hasPoints = false;
  for (const p of points) {
    const t = Date.parse(p.time) / 1000;
    // a bucket the server returned outside the window is not drawn (it would stretch the axis)
    if (!(t >= first && t <= to)) continue;
    const i = Math.min(count - 1, Math.floor((t - first) / step));
    hasPoints = true;
    latency[i] = p.duration;
    // a bucket with any failure shows red; a bucket of passes green
    const failed = p.failed > 0 || p.status === false;
    ok[i] = failed ? null : p.duration;
    bad[i] = failed ? p.duration : null;
  }
  return { data: [xs, latency, ok, bad], hasPoints };
}

// uPlot draws on a canvas: it needs colours, not CSS variables
const GREEN = '#13a10e';
const RED = '#d13438';
const LINE = '#0f6cbd';

/** Charts with the same key move their cursors together (and so their legends' values). */
export const CHART_SYNC_KEY = 'health-check';

const valueOf = (_u: uPlot, v: number | null) => (v == null ? '–' : formatDuration(v));

/** The uPlot options of the health chart for a window: the x scale is pinned to it, gaps stay gaps. */
export function buildChartOptions(window: ChartWindow, width: number, height: number): uPlot.Options {
  return {
    width,
    height,
    // live: the legend shows the values under the cursor
    legend: { show: true, live: true },
    cursor: { points: { size: 8 }, sync: { key: CHART_SYNC_KEY } },
    scales: {
      x: { time: true, auto: false, range: () => [window.from / 1000, window.to / 1000] },
      y: { range: (_u, _min, max) => [0, Math.max(10, (max ?? 0) * 1.15)] },
    },
    axes: [
      { stroke: '#616161', grid: { stroke: '#e0e0e0', width: 1 }, ticks: { stroke: '#e0e0e0' } },
      { stroke: '#616161', size: 60, grid: { stroke: '#eeeeee', width: 1 }, values: (_u, ticks) => ticks.map((t) => formatDuration(t)) },
    ],
    series: [
      {},
      { label: 'Latency', stroke: LINE, width: 1.5, fill: 'rgba(15,108,189,0.08)', spanGaps: false, value: valueOf },
      { label: 'Healthy', stroke: GREEN, width: 0, spanGaps: false, points: { show: true, size: 7, fill: GREEN, stroke: GREEN }, paths: () => null, value: valueOf },
      { label: 'Unhealthy', stroke: RED, width: 0, spanGaps: false, points: { show: true, size: 8, fill: RED, stroke: RED }, paths: () => null, value: valueOf },
    ],
  };
}
