import { persistedStore, useStore } from '../../lib/store';

/** How the tab draws the related items: a table or a graph, its direction and its edges (stored, per browser). */
export type GraphPrefs = { view: 'table' | 'graph'; direction: 'TB' | 'LR'; edges: 'smoothstep' | 'bezier' };
const store = persistedStore<GraphPrefs>('catalog.relationships.view', { view: 'table', direction: 'TB', edges: 'smoothstep' });

export function useGraphPrefs(): [GraphPrefs, (patch: Partial<GraphPrefs>) => void] {
  const v = useStore(store);
  const prefs: GraphPrefs = {
    view: v?.view === 'graph' ? 'graph' : 'table',
    direction: v?.direction === 'LR' ? 'LR' : 'TB',
    edges: v?.edges === 'bezier' ? 'bezier' : 'smoothstep',
  };
  return [prefs, (patch) => store.set({ ...prefs, ...patch })];
}
