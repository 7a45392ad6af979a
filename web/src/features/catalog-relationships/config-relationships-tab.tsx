import { RelationshipsView } from './components/relationships-view';

/**
 * An item's Relationships tab (/catalog/{id}/relationships), lazy-imported by the item detail. `canWrite` hides
 * Unlink from those who may not write (the server refuses them regardless).
 */
export function ConfigRelationshipsTab({ configId, canWrite }: { configId: string; canWrite?: boolean }) {
  return <RelationshipsView configId={configId} canWrite={canWrite} />;
}
