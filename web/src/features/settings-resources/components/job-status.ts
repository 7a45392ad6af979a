import type { BadgeProps } from '@fluentui/react-components';

/** job_history statuses (SUCCESS, FAILED, WARNING, RUNNING, SKIPPED) as badge colours. */
export function jobStatusColor(status: string): BadgeProps['color'] {
  switch (status.toUpperCase()) {
    case 'SUCCESS':
      return 'success';
    case 'FAILED':
      return 'danger';
    case 'WARNING':
      return 'warning';
    case 'RUNNING':
      return 'informative';
    default:
      return 'subtle';
  }
}
