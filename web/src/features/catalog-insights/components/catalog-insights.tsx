import type { ReactNode } from 'react';
import { Page } from '../../../components/page';
import { InsightsView } from './insights-view';

/** /catalog/insights: every insight in the catalog, under the catalog's tab bar (given by the route). */
export function CatalogInsights({ tabs }: { tabs: ReactNode }) {
  return (
    <Page title="Catalog Insights">
      {tabs}
      <InsightsView />
    </Page>
  );
}
