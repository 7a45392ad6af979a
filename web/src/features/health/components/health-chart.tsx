import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { tokens } from '@fluentui/react-components';
import type { GraphResponse } from '@contracts/health';
import { formatDuration } from '../../../lib/format';

// uPlot draws on a canvas: it needs colours, not CSS variables
const GREEN = '#13a10e';
const RED = '#d13438';
const LINE = '#0f6cbd';

function toData(points: GraphResponse['status']): uPlot.AlignedData {
  const xs: number[] = [];
  const latency: (number | null)[] = [];
  const ok: (number | null)[] = [];
  const bad: (number | null)[] = [];
  for (const p of points) {
    xs.push(new Date(p.time).getTime() / 1000);
    latency.push(p.duration);
    // a bucket with any failure shows red; a bucket of passes green
    const failed = p.failed > 0 || p.status === false;
    ok.push(failed ? null : p.duration);
    bad.push(failed ? p.duration : null);
  }
  return [xs, latency, ok, bad];
}

export interface HealthChartProps {
  points: GraphResponse['status'];
  height: number;
  /** Names the chart for assistive technology. */
  label: string;
}

/**
 * The Health Overview chart (lazy chunk): latency per bucket as a line, each bucket's status as a point, green
 * when every run in it passed, red otherwise.
 */
export function HealthChart({ points, height, label }: HealthChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(300, el.clientWidth),
      height,
      legend: { show: true },
      cursor: { points: { size: 8 } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(10, max * 1.15)] } },
      axes: [
        { stroke: '#616161', grid: { stroke: '#e0e0e0', width: 1 }, ticks: { stroke: '#e0e0e0' } },
        { stroke: '#616161', size: 60, grid: { stroke: '#eeeeee', width: 1 }, values: (_u, ticks) => ticks.map((t) => formatDuration(t)) },
      ],
      series: [
        {},
        { label: 'Latency', stroke: LINE, width: 1.5, fill: 'rgba(15,108,189,0.08)', value: (_u, v) => (v == null ? '–' : formatDuration(v)) },
        { label: 'Healthy', stroke: GREEN, width: 0, points: { show: true, size: 7, fill: GREEN, stroke: GREEN }, paths: () => null, value: (_u, v) => (v == null ? '–' : formatDuration(v)) },
        { label: 'Unhealthy', stroke: RED, width: 0, points: { show: true, size: 8, fill: RED, stroke: RED }, paths: () => null, value: (_u, v) => (v == null ? '–' : formatDuration(v)) },
      ],
    };
    plot.current = new uPlot(opts, toData(points), el);
    const ro = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(300, el.clientWidth), height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [points, height]);

  return <div ref={host} role="img" aria-label={label} style={{ width: '100%', color: tokens.colorNeutralForeground2 }} />;
}
