/**
 * The Changes panel's pages (spec 001: sidebar lists page 50 at a time; infinite scroll loads the next page within
 * 300 px of the end): `/api/db/config_changes` of the linked configs, newest first, `id` breaking ties so pages never
 * overlap or skip a row while changes keep arriving at the top. Pure, so the server tests run the same query.
 */
export const CHANGES_PAGE_SIZE = 50;
/** How close to the list's end (px) the next page loads. */
export const CHANGES_SCROLL_MARGIN_PX = 300;

export function changesPageQuery(configIds: string[], page: number): Record<string, string | number> {
  return {
    config_id: `in.(${configIds.map((i) => `"${i}"`).join(',')})`,
    select: 'id,config_id,change_type,severity,summary,source,created_at',
    order: 'created_at.desc,id.desc',
    limit: CHANGES_PAGE_SIZE,
    offset: page * CHANGES_PAGE_SIZE,
  };
}

/** The next page's number, or undefined after a short page (or once every row of `total` is loaded). */
export function nextChangesPage(pages: Array<{ rows: unknown[] }>, total: number | null): number | undefined {
  const last = pages[pages.length - 1];
  if (!last || last.rows.length < CHANGES_PAGE_SIZE) return undefined;
  const loaded = pages.reduce((n, p) => n + p.rows.length, 0);
  return total !== null && loaded >= total ? undefined : pages.length;
}
