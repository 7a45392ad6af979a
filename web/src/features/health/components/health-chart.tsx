import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { tokens } from '@fluentui/react-components';
import { buildChartOptions, type ChartWindow } from '../chart-model';

export interface HealthChartProps {
  /** From buildChartData: one x per bucket of the window. */
  data: uPlot.AlignedData;
  window: ChartWindow;
  height: number;
  /** Names the chart for assistive technology. */
  label: string;
}

/**
 * The health chart (lazy chunk, uPlot): latency per bucket as a line, each bucket's status as a point, green when
 * every run in it passed, red otherwise; the x axis is the window.
 */
export function HealthChart({ data, window, height, label }: HealthChartProps) {
  const host = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const plot = new uPlot(buildChartOptions(window, Math.max(300, el.clientWidth), height), data, el);
    const ro = new ResizeObserver(() => plot.setSize({ width: Math.max(300, el.clientWidth), height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [data, window, height]);

  // the window in attributes too: the canvas's axis cannot be read from the page (e2e)
  return (
    <div
      ref={host}
      role="img"
      aria-label={label}
      data-from={new Date(window.from).toISOString()}
      data-to={new Date(window.to).toISOString()}
      style={{ width: '100%', color: tokens.colorNeutralForeground2 }}
    />
  );
}
