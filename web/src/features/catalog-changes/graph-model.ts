import type uPlot from 'uplot';
import { CHANGE_SEVERITIES } from './model';

/** What the timeline plots of a change: when, and how severe. */
export interface TimedChange {
  created_at: string;
  severity?: string | null;
  count?: number | null;
}

const HOUR = 3_600;

/** Bucket width in seconds for a window: about 24 to 96 buckets whatever the range. */
export function bucketSeconds(fromMs: number, toMs: number): number {
  const span = Math.max(1, (toMs - fromMs) / 1000);
  const steps = [300, 900, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR, 7 * 24 * HOUR];
  return steps.find((s) => span / s <= 96) ?? 30 * 24 * HOUR;
}

/** The series the timeline draws, in order: each change severity, then changes with none. */
export const GRAPH_SERIES = [...CHANGE_SEVERITIES, 'none'] as const;

/**
 * Changes per bucket and severity over the window: uPlot's aligned data (x in seconds, one y array per
 * GRAPH_SERIES entry, 0 where a bucket has none). A change observed `count` times counts once: the timeline
 * shows changes, not their repeats. Changes outside the window are left out.
 */
export function buildTimeline(changes: TimedChange[], fromMs: number, toMs: number): { data: uPlot.AlignedData; step: number; plotted: number } {
  const step = bucketSeconds(fromMs, toMs);
  const from = Math.floor(fromMs / 1000 / step) * step;
  const to = toMs / 1000;
  const count = Math.max(1, Math.floor((to - from) / step) + 1);
  const xs = Array.from({ length: count }, (_, i) => from + i * step);
  const ys = GRAPH_SERIES.map(() => new Array<number>(count).fill(0));
  let plotted = 0;
  for (const c of changes) {
    const t = Date.parse(c.created_at) / 1000;
    if (!(t >= from && t <= to)) continue;
    const sev = (c.severity ?? '').toLowerCase();
    const s = (GRAPH_SERIES as readonly string[]).indexOf(sev);
    ys[s < 0 ? GRAPH_SERIES.length - 1 : s][Math.min(count - 1, Math.floor((t - from) / step))]++;
    plotted++;
  }
  return { data: [xs, ...ys], step, plotted };
}
