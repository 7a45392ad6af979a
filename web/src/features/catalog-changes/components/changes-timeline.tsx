import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { tokens } from '@fluentui/react-components';
import { buildTimeline, GRAPH_SERIES, type TimedChange } from '../graph-model';

// uPlot draws on a canvas: colours, not CSS variables (critical/high red shades, medium/low amber, info blue)
const COLORS: Record<(typeof GRAPH_SERIES)[number], string> = {
  critical: '#a4262c',
  high: '#d13438',
  medium: '#ca5010',
  low: '#c19c00',
  info: '#0f6cbd',
  none: '#8a8886',
};
const LABELS: Record<string, string> = { none: 'No severity' };

function options(width: number, height: number, from: number, to: number, step: number): uPlot.Options {
  const bars = uPlot.paths.bars!({ size: [0.9, 40], align: 0 });
  return {
    width,
    height,
    legend: { show: true, live: true },
    cursor: { points: { size: 6 } },
    scales: {
      x: { time: true, auto: false, range: () => [from / 1000, to / 1000 + step] },
      y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil((max ?? 0) * 1.15))] },
    },
    axes: [
      { stroke: '#616161', grid: { stroke: '#e0e0e0', width: 1 }, ticks: { stroke: '#e0e0e0' } },
      { stroke: '#616161', size: 40, grid: { stroke: '#eeeeee', width: 1 }, values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) },
    ],
    series: [
      {},
      ...GRAPH_SERIES.map((s) => ({
        label: LABELS[s] ?? s.charAt(0).toUpperCase() + s.slice(1),
        stroke: COLORS[s],
        fill: `${COLORS[s]}cc`,
        width: 1,
        paths: bars,
        points: { show: false },
        value: (_u: uPlot, v: number | null) => (v == null ? '–' : String(v)),
      })),
    ],
  };
}

export interface ChangesTimelineProps {
  changes: TimedChange[];
  /** The window in epoch milliseconds: the x axis is this whatever the data. */
  from: number;
  to: number;
  height?: number;
}

/** Changes over time, one bar series per severity (lazy chunk with uPlot). */
export function ChangesTimeline({ changes, from, to, height = 280 }: ChangesTimelineProps) {
  const host = useRef<HTMLDivElement>(null);
  const timeline = useMemo(() => buildTimeline(changes, from, to), [changes, from, to]);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const plot = new uPlot(options(Math.max(300, el.clientWidth), height, from, to, timeline.step), timeline.data, el);
    const ro = new ResizeObserver(() => plot.setSize({ width: Math.max(300, el.clientWidth), height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [timeline, from, to, height]);

  // the counts in attributes too: a canvas cannot be read from the page (e2e)
  return (
    <div
      ref={host}
      role="img"
      aria-label={`Changes over time: ${timeline.plotted} changes`}
      data-plotted={timeline.plotted}
      data-from={new Date(from).toISOString()}
      data-to={new Date(to).toISOString()}
      style={{ width: '100%', color: tokens.colorNeutralForeground2 }}
    />
  );
}
