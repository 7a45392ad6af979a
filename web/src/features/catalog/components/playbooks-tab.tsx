import { useMemo, useState } from 'react';
import { makeStyles, tokens } from '@fluentui/react-components';
import { dataTableColumns } from '../../../components/data-table/columns';
import { DataTable } from '../../../components/data-table/data-table';
import type { DataTableStateHandle } from '../../../components/data-table/use-data-table-state';
import { usePlaybookAbilities } from '../../../components/playbooks/abilities';
import { PlaybooksMenu } from '../../../components/playbooks/playbooks-menu';
import { Age } from '../../../components/status/age';
import { StatusBadge } from '../../../components/status/status-badge';
import { formatDuration } from '../../../lib/format';
import { useConfigPlaybookRuns, type ConfigPlaybookRun } from '../api';
import { PLAYBOOK_PAGE_SIZE } from '../model';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS },
  menu: { display: 'flex', justifyContent: 'flex-end' },
});

const col = dataTableColumns<ConfigPlaybookRun>();
const NO_RUNS: ConfigPlaybookRun[] = [];

function duration(r: ConfigPlaybookRun): string {
  if (!r.start_time || !r.end_time) return '';
  return formatDuration(Date.parse(r.end_time) - Date.parse(r.start_time));
}

/** Spec 001 §4 run statuses: done green, failed red, in flight blue, the rest neutral. */
const RUN_COLOR: Record<string, 'success' | 'danger' | 'brand' | 'warning' | 'informative'> = {
  completed: 'success',
  failed: 'danger',
  running: 'brand',
  pending: 'informative',
  scheduled: 'informative',
  waiting: 'informative',
  sleeping: 'informative',
  cancelled: 'warning',
  skipped: 'informative',
};

const COLUMNS = [
  col.accessor((r) => r.playbook?.title || r.playbook?.name || '', { id: 'playbook', enableSorting: false, header: 'Playbook' }),
  col.accessor('status', { enableSorting: false, header: 'Status', meta: { width: '130px' }, cell: (c) => <StatusBadge status={c.getValue()} color={RUN_COLOR[c.getValue()] ?? 'informative'} /> }),
  col.accessor('created_at', { enableSorting: false, header: 'Started', meta: { width: '120px' }, cell: (c) => <Age value={c.row.original.start_time ?? c.getValue()} /> }),
  col.accessor((r) => duration(r), { id: 'duration', enableSorting: false, header: 'Duration', meta: { width: '110px' } }),
  col.accessor('error', { enableSorting: false, header: 'Error' }),
];

/** The Playbooks tab: the Run menu (the playbooks that may run on the item) and its runs, newest first, 50 a page. */
export function PlaybooksTab({ configId }: { configId: string }) {
  const s = useStyles();
  const can = usePlaybookAbilities();
  const [pageIndex, setPageIndex] = useState(0);
  const runs = useConfigPlaybookRuns(configId, pageIndex);
  const state: DataTableStateHandle = useMemo(
    () => ({
      state: { sorting: [], pagination: { pageIndex, pageSize: PLAYBOOK_PAGE_SIZE } },
      setSorting: () => {},
      setPagination: (u) => setPageIndex((typeof u === 'function' ? u({ pageIndex, pageSize: PLAYBOOK_PAGE_SIZE }) : u).pageIndex),
    }),
    [pageIndex],
  );
  return (
    <div className={s.root}>
      <div className={s.menu}>
        <PlaybooksMenu resource={{ config_id: configId }} canRun={can.canRun} appearance="primary" />
      </div>
      <DataTable
        label="Playbook runs"
        columns={COLUMNS}
        data={runs.data?.rows ?? NO_RUNS}
        getRowId={(r) => r.id}
        loading={runs.isFetching}
        manual
        total={runs.data?.total ?? 0}
        state={state}
        pageSizes={[PLAYBOOK_PAGE_SIZE]}
        urlState={false}
        paginate={(runs.data?.total ?? 0) > PLAYBOOK_PAGE_SIZE}
        emptyMessage={runs.isError ? 'The playbook runs could not be loaded' : 'No playbook has run on this item'}
      />
    </div>
  );
}
