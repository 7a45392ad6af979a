import { InsightsView } from './components/insights-view';

/** An item's Insights tab (/catalog/{id}/insights), lazy-imported by the item detail. */
export function ConfigInsightsTab({ configId }: { configId: string }) {
  return <InsightsView configId={configId} />;
}
