import { CatalogTabs } from '../../features/catalog/catalog-tabs';
import { CatalogChanges } from '../../features/catalog-changes/components/catalog-changes';

/** /catalog/changes */
export function CatalogChangesPage() {
  return <CatalogChanges tabs={<CatalogTabs selected="changes" />} />;
}
