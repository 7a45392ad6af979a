import { Badge } from '@fluentui/react-components';
import { runStatusColor, runStatusLabel } from '../../../../components/playbooks/run-status';

/** A run's or an action's status as a pill, in the shared run-status colours (completed green, failed red…). */
export function RunStatusBadge({ status }: { status: string }) {
  return (
    <Badge appearance="tint" shape="rounded" color={runStatusColor(status)} data-status={status}>
      {runStatusLabel(status)}
    </Badge>
  );
}
