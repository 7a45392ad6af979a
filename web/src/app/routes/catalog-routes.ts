import type { RoutePage } from './route-group';

/**
 * The catalog's pages, each its own chunk. The entry imports this small module once (route-group.ts), so the list of
 * the catalog's chunks lives here rather than in the start-up bundle.
 */
export const CATALOG_PAGES = {
  CatalogPage: () => import('./catalog-page').then((m) => m.CatalogPage),
  CatalogChangesPage: () => import('./catalog-changes-page').then((m) => m.CatalogChangesPage),
  CatalogInsightsPage: () => import('./catalog-insights-page').then((m) => m.CatalogInsightsPage),
  CatalogScrapersPage: () => import('./catalog-scrapers-page').then((m) => m.CatalogScrapersPage),
  CatalogScraperPage: () => import('./catalog-scrapers-page').then((m) => m.CatalogScraperPage),
  ConfigPage: () => import('./catalog-item-page').then((m) => m.ConfigPage),
  ConfigChangesPage: () => import('./catalog-item-page').then((m) => m.ConfigChangesPage),
  ConfigInsightsPage: () => import('./catalog-item-page').then((m) => m.ConfigInsightsPage),
  ConfigRelationshipsPage: () => import('./catalog-item-page').then((m) => m.ConfigRelationshipsPage),
  ConfigPlaybooksPage: () => import('./catalog-item-page').then((m) => m.ConfigPlaybooksPage),
  ConfigChecksPage: () => import('./catalog-item-page').then((m) => m.ConfigChecksPage),
} satisfies Record<string, () => Promise<RoutePage>>;
