import { formatAge, formatDateTime, toDate } from '../../lib/format';

/**
 * "5m ago", with the full local date and time on hover (the native `title`, also its accessible description) and
 * as a machine-readable <time>. Not a Fluent Tooltip: a `relationship="description"` tooltip always renders a
 * hidden portal (a <div> in <body> on which React registers its whole set of listeners), and a table shows an age
 * in every row.
 */
export function Age({ value, now }: { value: Date | string | number | null | undefined; now?: number }) {
  const d = toDate(value);
  if (!d) return null;
  return (
    <time dateTime={d.toISOString()} title={formatDateTime(d)}>
      {formatAge(d, now)}
    </time>
  );
}
