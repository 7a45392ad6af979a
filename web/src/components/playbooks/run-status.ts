/** Run statuses' badge colours (spec 001 §4): done green, failed red, in flight blue, waiting on people amber. */
export const RUN_STATUS_COLOR: Record<string, 'success' | 'danger' | 'brand' | 'warning' | 'informative' | 'important'> = {
  completed: 'success',
  failed: 'danger',
  timed_out: 'danger',
  running: 'brand',
  retrying: 'brand',
  pending_approval: 'warning',
  pending: 'informative',
  scheduled: 'informative',
  waiting: 'informative',
  sleeping: 'informative',
  cancelled: 'important',
  skipped: 'informative',
};

export const runStatusColor = (status: string) => RUN_STATUS_COLOR[status] ?? 'informative';

/** `pending_approval` reads "Pending Approval". */
export const runStatusLabel = (status: string) =>
  status.split('_').map((w) => (w ? w[0].toUpperCase() + w.slice(1) : w)).join(' ');
