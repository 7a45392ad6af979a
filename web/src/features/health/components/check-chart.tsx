import { lazy, Suspense, useMemo } from 'react';
import { makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import type { GraphResponse } from '@contracts/health';
import { errorMessage } from '../../../lib/api-client';
import { buildChartData, type ChartWindow } from '../chart-model';

// uPlot (about 20 kB gzip) loads when there is something to draw
const HealthChart = lazy(() => import('./health-chart').then((m) => ({ default: m.HealthChart })));

const useStyles = makeStyles({
  box: {
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusLarge,
    padding: tokens.spacingHorizontalS,
    minHeight: '60px',
  },
  muted: { color: tokens.colorNeutralForeground3 },
});

export interface CheckChartProps {
  /** The graph query's state (useCheckGraph). */
  graph: { data?: GraphResponse & { window: ChartWindow }; error: unknown };
  height: number;
  label: string;
}

/** The check drawer's chart panel: loading, error, the empty state when no result falls in the window, or the chart. */
export function CheckChart({ graph, height, label }: CheckChartProps) {
  const s = useStyles();
  const model = useMemo(
    () => (graph.data ? buildChartData(graph.data.status, graph.data.window, graph.data.bucketSeconds) : null),
    [graph.data],
  );
  let body;
  if (graph.error && !graph.data) body = <Text role="alert" className={s.muted}>The chart could not be loaded: {errorMessage(graph.error)}</Text>;
  else if (!graph.data || !model) body = <Spinner size="small" label="Loading chart…" />;
  else if (!model.hasPoints) body = <Text role="status" className={s.muted}>No results in this time range</Text>;
  else
    body = (
      <Suspense fallback={<Spinner size="small" label="Loading chart…" />}>
        <HealthChart data={model.data} window={graph.data.window} height={height} label={label} />
      </Suspense>
    );
  return <div className={s.box}>{body}</div>;
}
