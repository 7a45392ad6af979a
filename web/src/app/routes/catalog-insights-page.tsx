import { CatalogTabs } from '../../features/catalog/catalog-tabs';
import { CatalogInsights } from '../../features/catalog-insights/components/catalog-insights';

/** /catalog/insights */
export function CatalogInsightsPage() {
  return <CatalogInsights tabs={<CatalogTabs selected="insights" />} />;
}
