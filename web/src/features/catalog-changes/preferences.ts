import { persistedStore, useStore } from '../../lib/store';

/** Spec 001 §2: Table or Graph, a stored preference, default Table. */
export type ChangesView = 'table' | 'graph';
const viewStore = persistedStore<ChangesView>('catalog.changes.view', 'table');

/** Spec 001 §2: changes of deleted configs are hidden by a stored preference, by default. */
const showDeletedStore = persistedStore<boolean>('catalog.changes.showDeleted', false);

export function useChangesView(): [ChangesView, (v: ChangesView) => void] {
  const v = useStore(viewStore);
  return [v === 'graph' ? 'graph' : 'table', viewStore.set];
}

export function useShowDeletedChanges(): [boolean, (v: boolean) => void] {
  return [useStore(showDeletedStore) === true, showDeletedStore.set];
}
