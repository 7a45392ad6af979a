import { Spinner } from '@fluentui/react-components';

/** An item's insights tab (placeholder until the real one lands). */
export function ConfigInsightsTab({ configId }: { configId: string }) {
  return <Spinner size="small" label="Loading insights…" data-config-id={configId} />;
}
