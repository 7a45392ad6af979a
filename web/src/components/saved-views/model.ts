import { z } from 'zod';

/** A `saved_query` row as the Views menu reads it: a named page URL (path and query string). */
export const SavedView = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  query: z.string(),
  // the reference's column is text: the creator's person id
  created_by: z.string().nullable(),
});
export type SavedView = z.infer<typeof SavedView>;

export const NAME_REQUIRED = 'Name is required';

/** The "Save view" dialog: a name (required) and an optional description. */
export const SaveViewForm = z.object({
  name: z.string().trim().min(1, NAME_REQUIRED).max(100, 'Name is too long (100 characters at most)'),
  description: z.string().trim().max(500, 'Description is too long (500 characters at most)'),
});
export type SaveViewForm = z.infer<typeof SaveViewForm>;

/** The page of a saved URL: everything before its query string. */
export function pathOf(query: string): string {
  const i = query.search(/[?#]/);
  return i < 0 ? query : query.slice(0, i);
}

/** What a view of this page stores: the path and, when there is one, the query string (wouter's, without `?`). */
export function viewQuery(path: string, search: string): string {
  const s = search.replace(/^\?/, '');
  return s ? `${path}?${s}` : path;
}

/**
 * The views of one page, by name. The server is asked by path prefix (`/catalog*`), which also matches the pages
 * below it (`/catalog/changes`): only views of exactly this page stay.
 */
export function viewsForPage(views: readonly SavedView[], path: string): SavedView[] {
  return views.filter((v) => pathOf(v.query) === path).sort((a, b) => a.name.localeCompare(b.name));
}

const sortedParams = (search: string) => [...new URLSearchParams(search)].map(([k, v]) => `${k}=${v}`).sort().join('&');

/** The view shows what the page shows now: same page, same parameters in any order. */
export function isCurrentView(view: SavedView, path: string, search: string): boolean {
  if (pathOf(view.query) !== path) return false;
  const i = view.query.indexOf('?');
  return sortedParams(i < 0 ? '' : view.query.slice(i + 1)) === sortedParams(search.replace(/^\?/, ''));
}

/** Names are unique per person (the table's constraint): the dialog says so before the server refuses. */
export function nameTaken(views: readonly SavedView[], name: string, me: string): boolean {
  return views.some((v) => v.created_by === me && v.name === name.trim());
}

/** Who may delete a view: its creator, or an admin (the server enforces the same). */
export function canDelete(view: SavedView, me: string, admin: boolean): boolean {
  return admin || view.created_by === me;
}
