import { ChangesView } from './components/changes-view';

/** An item's Changes tab (/catalog/{id}/changes), lazy-imported by the item detail. */
export function ConfigChangesTab({ configId }: { configId: string }) {
  return <ChangesView configId={configId} />;
}
