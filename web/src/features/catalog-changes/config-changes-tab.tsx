import { Spinner } from '@fluentui/react-components';

/** An item's changes tab (placeholder until the real one lands). */
export function ConfigChangesTab({ configId }: { configId: string }) {
  return <Spinner size="small" label="Loading changes…" data-config-id={configId} />;
}
