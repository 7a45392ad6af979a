import { dataTableColumns } from '../../../components/data-table/columns';
import { DataTable } from '../../../components/data-table/data-table';
import { Age } from '../../../components/status/age';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { useConfigChecks, type ConfigCheck } from '../api';

const col = dataTableColumns<ConfigCheck>();
const NO_CHECKS: ConfigCheck[] = [];

const COLUMNS = [
  col.accessor('name', {
    header: 'Check',
    cell: (c) => (
      <span style={{ display: 'inline-flex', gap: 8, alignItems: 'center' }}>
        <HealthIndicator health={c.row.original.status} size="small" />
        {c.getValue()}
      </span>
    ),
  }),
  col.accessor('type', { header: 'Type', meta: { width: '140px' } }),
  col.accessor('status', { header: 'Status', meta: { width: '120px' } }),
  col.accessor('canary_name', { header: 'Canary', meta: { width: '180px' } }),
  col.accessor('last_runtime', { header: 'Last run', meta: { width: '110px' }, cell: (c) => <Age value={c.getValue()} /> }),
];

/** The Checks tab: the health checks linked to the item (`check_summary_for_config`). */
export function ChecksTab({ configId }: { configId: string }) {
  const checks = useConfigChecks(configId);
  return (
    <DataTable
      label="Linked checks"
      columns={COLUMNS}
      data={checks.data ?? NO_CHECKS}
      getRowId={(r) => r.id}
      loading={checks.isFetching}
      paginate={false}
      urlState={false}
      emptyMessage={checks.isError ? 'The checks could not be loaded' : 'No health check is linked to this item'}
    />
  );
}
