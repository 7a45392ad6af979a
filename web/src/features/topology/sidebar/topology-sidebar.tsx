import { Text } from '@fluentui/react-components';
import type { TopologyComponent } from '@contracts/topology';

export interface TopologySidebarProps {
  component: TopologyComponent | undefined;
  /** admin or editor: may link and unlink configs (the server enforces it too). */
  canWrite?: boolean;
  /** The incidents feature is on (else the Incidents panel is hidden). */
  incidentsEnabled?: boolean;
}

export function TopologySidebar({ component }: TopologySidebarProps) {
  if (!component) return null;
  return (
    <aside aria-label="Component details">
      <Text weight="semibold">{component.name}</Text>
    </aside>
  );
}
