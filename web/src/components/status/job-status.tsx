import type { BadgeProps } from '@fluentui/react-components';
import { StatusBadge } from './status-badge';

/**
 * Spec 001 §4 job statuses as badge colours: SUCCESS green, FAILED red, WARNING orange, RUNNING blue, STALE (a run that never
 * finished) orange, STOPPED and SKIPPED grey. Shared by every page that shows a job_history status (integrations, settings resources,
 * job history).
 */
export function jobStatusColor(status: string): BadgeProps['color'] {
  switch (status.toUpperCase()) {
    case 'SUCCESS':
      return 'success';
    case 'FAILED':
      return 'danger';
    case 'WARNING':
    case 'STALE':
      return 'warning';
    case 'RUNNING':
      return 'informative';
    default:
      return 'subtle';
  }
}

/** A job status in its §4 colour; nothing when the resource has not run yet. */
export function JobStatusBadge({ status }: { status: string | null | undefined }) {
  if (!status) return null;
  return <StatusBadge status={status} color={jobStatusColor(status)} />;
}
