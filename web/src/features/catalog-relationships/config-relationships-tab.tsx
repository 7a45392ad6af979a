import { Spinner } from '@fluentui/react-components';

/** An item's relationships tab (placeholder until the real one lands). */
export function ConfigRelationshipsTab({ configId }: { configId: string }) {
  return <Spinner size="small" label="Loading relationships…" data-config-id={configId} />;
}
