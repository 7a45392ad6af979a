import { Text } from '@fluentui/react-components';

/** Playbooks: which playbooks may run on a component needs the playbooks engine, not built in this version. */
export function PlaybooksPanel() {
  return <Text>Playbooks are not available in this version</Text>;
}
