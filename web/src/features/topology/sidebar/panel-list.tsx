import type { ReactNode } from 'react';
import { makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { errorMessage } from '../../../lib/api-client';

const useStyles = makeStyles({
  list: { listStyle: 'none', margin: 0, padding: 0, display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXS },
  row: {
    display: 'flex',
    alignItems: 'center',
    gap: tokens.spacingHorizontalS,
    minWidth: 0,
    paddingBlock: tokens.spacingVerticalXXS,
  },
  muted: { color: tokens.colorNeutralForeground3 },
});

interface PanelListProps<T> {
  label: string;
  query: { data?: T[]; isPending: boolean; isError: boolean; error: unknown };
  empty: string;
  rowKey: (row: T) => string;
  row: (row: T) => ReactNode;
}

/** A panel's rows with its loading, error and empty states, the same in every panel. */
export function PanelList<T>({ label, query, empty, rowKey, row }: PanelListProps<T>) {
  const s = useStyles();
  if (query.isError) return <Text role="alert">{errorMessage(query.error)}</Text>;
  if (query.isPending || !query.data) return <Spinner size="tiny" label="Loading…" />;
  if (!query.data.length) return <Text className={s.muted}>{empty}</Text>;
  return (
    <ul className={s.list} aria-label={label}>
      {query.data.map((r) => (
        <li key={rowKey(r)} className={s.row}>{row(r)}</li>
      ))}
    </ul>
  );
}
