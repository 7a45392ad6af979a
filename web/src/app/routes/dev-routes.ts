import type { RoutePage } from './route-group';

/**
 * The developers' pages (the UI kit and the table benchmark), one route module: the kit gallery imports nearly every
 * shared component, and its list of chunks sat in the start-up bundle as long as the entry imported it directly.
 */
export const DEV_PAGES = {
  KitGalleryPage: () => import('./kit-gallery').then((m) => m.KitGalleryPage),
  BenchTablePage: () => import('./bench-table-page').then((m) => m.BenchTablePage),
} satisfies Record<string, () => Promise<RoutePage>>;
