import { useCallback, useMemo, useState } from 'react';
import { useLocation } from 'wouter';
import { Button, makeStyles, Text, tokens } from '@fluentui/react-components';
import { Add20Regular, ErrorCircle24Regular } from '@fluentui/react-icons';
import { DataTable } from '../../../components/data-table/data-table';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { useDataTableState } from '../../../components/data-table/use-data-table-state';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { Age } from '../../../components/status/age';
import { PersonAvatarGroup } from '../../../components/status/person-avatars';
import { errorMessage } from '../../../lib/api-client';
import { useUrlState } from '../../../lib/url-state';
import { useIncidents, type IncidentFilters, type IncidentRow } from '../api';
import { CreateIncidentDialog } from './create-incident-dialog';
import { IncidentStatusBadge, IncidentType, SeverityBadge } from './incident-badges';
import { ALL, IncidentFilterBar } from './incident-filters';
import { humanize } from '../model';

/** The list's filters in the URL: status defaults to open, the others to all. */
const URL_DEFAULTS: IncidentFilters = { severity: ALL, status: 'open', owner: ALL, type: ALL, component: ALL, search: '' };
const NO_ROWS: IncidentRow[] = [];
export const EMPTY_INCIDENTS = 'There are no incidents matching this criteria';

const useStyles = makeStyles({
  id: { fontFamily: tokens.fontFamilyMonospace, fontSize: tokens.fontSizeBase200, color: tokens.colorNeutralForeground2 },
  title: { fontWeight: tokens.fontWeightSemibold },
  none: { color: tokens.colorNeutralForeground4 },
});

const col = dataTableColumns<IncidentRow>();

function responderPeople(row: IncidentRow) {
  return row.responders.map((r) => ({ id: r.id, name: r.person?.name ?? r.team?.name ?? 'Responder', avatar: r.person?.avatar ?? null }));
}

function useColumns(): DataTableColumn<IncidentRow>[] {
  const s = useStyles();
  return useMemo(
    () => [
      col.accessor('incident_id', { header: 'Id', meta: { width: '110px' }, cell: ({ getValue }) => <span className={s.id}>{getValue()}</span> }),
      col.accessor('type', { header: 'Type', meta: { width: '150px' }, cell: ({ getValue }) => <IncidentType type={getValue()} /> }),
      // stored as words: the server's alphabetical order (blocker, critical, high…) would mislead
      col.accessor('severity', { header: 'Severity', enableSorting: false, meta: { width: '110px' }, cell: ({ getValue }) => <SeverityBadge severity={humanize(getValue())} /> }),
      col.accessor('status', { header: 'Status', meta: { width: '130px' }, cell: ({ getValue }) => <IncidentStatusBadge status={getValue()} /> }),
      col.accessor('title', { header: 'Name', cell: ({ getValue }) => <span className={s.title}>{getValue()}</span> }),
      col.accessor('created_at', { id: 'age', header: 'Age', meta: { width: '100px' }, cell: ({ getValue }) => <Age value={getValue()} /> }),
      col.display({
        id: 'responders',
        header: 'Responders',
        meta: { width: '170px' },
        cell: ({ row }) =>
          row.original.responders.length ? (
            <PersonAvatarGroup people={responderPeople(row.original)} max={5} size={24} />
          ) : (
            <Text size={200} className={s.none}>None</Text>
          ),
      }),
    ],
    [s],
  );
}

export interface IncidentListProps {
  canCreate: boolean;
  currentUserId: string;
  incidentHref: (id: string) => string;
}

/** /incidents: filters in the URL, server-paged list, the create-incident modal. */
export function IncidentList({ canCreate, currentUserId, incidentHref }: IncidentListProps) {
  const [filters, setFilters] = useUrlState(URL_DEFAULTS);
  const table = useDataTableState({ defaultSort: { id: 'age', desc: true } });
  const { pagination, sorting } = table.state;
  const page = { pageIndex: pagination.pageIndex, pageSize: pagination.pageSize, sortBy: sorting[0]?.id ?? 'age', desc: sorting[0]?.desc ?? true };
  const incidents = useIncidents(filters, page);
  const columns = useColumns();
  const [, navigate] = useLocation();
  const [creating, setCreating] = useState(false);
  const onSubmit = useCallback(
    (next: IncidentFilters) => {
      // a new filter starts from the first page
      setFilters(next);
      if (pagination.pageIndex) table.setPagination({ ...pagination, pageIndex: 0 });
    },
    [setFilters, table, pagination],
  );

  return (
    <Page
      title="Incidents"
      onRefresh={() => void incidents.refetch()}
      refreshing={incidents.isFetching}
      extra={
        canCreate && (
          <Button appearance="primary" icon={<Add20Regular />} onClick={() => setCreating(true)}>
            Create Incident
          </Button>
        )
      }
    >
      <IncidentFilterBar value={filters} onSubmit={onSubmit} />
      {incidents.error && !incidents.data ? (
        <EmptyState
          icon={<ErrorCircle24Regular />}
          title="Incidents could not be loaded"
          description={errorMessage(incidents.error)}
          role="alert"
          actions={<Button onClick={() => void incidents.refetch()}>Try again</Button>}
        />
      ) : (
        <DataTable
          label="Incidents"
          columns={columns}
          data={incidents.data?.rows ?? NO_ROWS}
          getRowId={(r) => r.id}
          loading={incidents.isFetching}
          manual
          total={incidents.data?.total ?? 0}
          state={table}
          emptyMessage={EMPTY_INCIDENTS}
          onRowClick={(r) => navigate(incidentHref(r.id))}
        />
      )}
      {canCreate && (
        <CreateIncidentDialog
          open={creating}
          onOpenChange={setCreating}
          currentUserId={currentUserId}
          onCreated={(id) => navigate(incidentHref(id))}
        />
      )}
    </Page>
  );
}
