import { Tooltip } from '@fluentui/react-components';
import { formatAge, formatDateTime, toDate } from '../../lib/format';

/** "5m ago", with the full local date and time on hover and as a machine-readable <time>. */
export function Age({ value, now }: { value: Date | string | number | null | undefined; now?: number }) {
  const d = toDate(value);
  if (!d) return null;
  return (
    <Tooltip content={formatDateTime(d)} relationship="description">
      <time dateTime={d.toISOString()}>{formatAge(d, now)}</time>
    </Tooltip>
  );
}
