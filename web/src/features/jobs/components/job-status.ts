import type { BadgeProps } from '@fluentui/react-components';

/** Spec 001 §4 job status colours: RUNNING, SUCCESS, WARNING, FAILED (and STOPPED, STALE, SKIPPED muted or amber). */
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
