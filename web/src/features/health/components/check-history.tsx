import { useMemo, useState } from 'react';
import { Combobox, Dropdown, Field, makeStyles, Option, Text, tokens } from '@fluentui/react-components';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import type { CheckStatusEntry } from '@contracts/health';
import { DataTable } from '../../../components/data-table/data-table';
import { dataTableColumns } from '../../../components/data-table/columns';
import { useDataTableState } from '../../../components/data-table/use-data-table-state';
import { EmptyState } from '../../../components/empty-state';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { Age } from '../../../components/status/age';
import { errorMessage } from '../../../lib/api-client';
import { formatDateTime, formatDuration } from '../../../lib/format';
import { useCheckHistory } from '../api';
import { parseDurationFilter } from '../filters';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, minHeight: 0 },
  filters: { display: 'flex', gap: tokens.spacingHorizontalM, flexWrap: 'wrap', alignItems: 'flex-start' },
  select: { minWidth: '150px' },
  age: { display: 'inline-flex', alignItems: 'center', gap: tokens.spacingHorizontalS },
  message: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  error: { color: tokens.colorPaletteRedForeground1 },
});

const STATUSES = [
  { value: 'all', label: 'All' },
  { value: '1', label: 'Healthy' },
  { value: '0', label: 'Unhealthy' },
] as const;
const DURATIONS = ['All', '100ms', '500ms', '1s', '5s', '10s', '30s'];
/** Spec 000 §2: 50 rows a page. */
const PAGE_SIZES = [50] as const;

const col = dataTableColumns<CheckStatusEntry>();
const NO_ROWS: CheckStatusEntry[] = [];

/** The History tab: one check's results in the window, newest first, paged by the server. */
export function CheckHistory({ checkId, window, range }: {
  checkId: string;
  window: string;
  /** An absolute range (From/To) the drawer shows instead of `window`. */
  range?: { from: string; to: string } | null;
}) {
  const s = useStyles();
  const [status, setStatus] = useState<'all' | '1' | '0'>('all');
  const [duration, setDuration] = useState<{ text: string; ms?: number }>({ text: 'All' });
  const [durationInput, setDurationInput] = useState('All');
  const [durationError, setDurationError] = useState('');
  const table = useDataTableState({ url: false, pageSizes: PAGE_SIZES, defaultPageSize: 50 });
  const { pageIndex, pageSize } = table.state.pagination;
  const history = useCheckHistory(checkId, {
    ...(range ? { start: range.from, end: range.to } : { start: window }),
    page: pageIndex + 1,
    pageSize,
    status: status === 'all' ? undefined : status,
    duration: duration.ms,
  });

  const columns = useMemo(
    () => [
      col.accessor('time', {
        header: 'Age',
        enableSorting: false,
        meta: { width: '170px' },
        cell: ({ row }) => (
          <span className={s.age} title={formatDateTime(row.original.time)}>
            <HealthIndicator health={row.original.status === null ? null : row.original.status ? 'healthy' : 'unhealthy'} />
            <Age value={row.original.time} />
          </span>
        ),
      }),
      col.accessor('duration', {
        header: 'Duration',
        enableSorting: false,
        meta: { width: '110px', align: 'end' },
        cell: ({ getValue }) => formatDuration(getValue()),
      }),
      col.accessor((r) => r.error || r.message || '', {
        id: 'message',
        header: 'Message',
        enableSorting: false,
        cell: ({ row }) => {
          const text = row.original.error || row.original.message || '';
          return (
            <span className={row.original.error ? s.error : undefined} title={text}>
              {text}
            </span>
          );
        },
      }),
    ],
    [s],
  );

  const reset = () => table.setPagination((p) => ({ ...p, pageIndex: 0 }));
  const chooseDuration = (text: string) => {
    setDurationInput(text);
    if (!text || text === 'All') {
      setDurationError('');
      setDuration({ text: 'All' });
      reset();
      return;
    }
    const parsed = parseDurationFilter(text);
    if ('error' in parsed) {
      setDurationError(parsed.error);
      return;
    }
    setDurationError('');
    setDuration({ text, ms: parsed.ms });
    reset();
  };

  return (
    <div className={s.root}>
      <div className={s.filters}>
        <Field label="Status">
          <Dropdown
            className={s.select}
            value={STATUSES.find((o) => o.value === status)!.label}
            selectedOptions={[status]}
            onOptionSelect={(_, d) => {
              setStatus((d.optionValue ?? 'all') as typeof status);
              reset();
            }}
          >
            {STATUSES.map((o) => (
              <Option key={o.value} value={o.value}>{o.label}</Option>
            ))}
          </Dropdown>
        </Field>
        <Field label="Minimum duration" validationMessage={durationError || undefined} validationState={durationError ? 'error' : 'none'}>
          <Combobox
            className={s.select}
            freeform
            value={durationInput}
            selectedOptions={[duration.text]}
            onChange={(e) => setDurationInput(e.target.value)}
            onOptionSelect={(_, d) => d.optionText && chooseDuration(d.optionText)}
            onBlur={() => durationInput !== duration.text && chooseDuration(durationInput.trim())}
            onKeyDown={(e) => {
              if (e.key === 'Enter') chooseDuration(durationInput.trim());
            }}
          >
            {DURATIONS.map((d) => (
              <Option key={d}>{d}</Option>
            ))}
          </Combobox>
        </Field>
      </div>
      {history.error && !history.data ? (
        <EmptyState icon={<ErrorCircle24Regular />} title="History could not be loaded" description={errorMessage(history.error)} role="alert" />
      ) : (
        <DataTable
          label="Check history"
          columns={columns}
          data={history.data?.data ?? NO_ROWS}
          loading={history.isFetching}
          manual
          total={history.data?.totalEntries ?? 0}
          state={table}
          pageSizes={PAGE_SIZES}
          emptyMessage="No results in this time range"
          maxHeight="60vh"
        />
      )}
      {history.data && <Text size={200}>{history.data.totalEntries} results in the window</Text>}
    </div>
  );
}
