import { CatalogList } from '../../features/catalog/components/catalog-list';

/** /catalog */
export function CatalogPage() {
  return <CatalogList />;
}
