import { useMemo } from 'react';
import { makeStyles, tokens } from '@fluentui/react-components';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import { DataTable } from '../../../components/data-table/data-table';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { EmptyState } from '../../../components/empty-state';
import { errorMessage } from '../../../lib/api-client';
import { Age } from '../../../components/status/age';
import { PersonAvatar } from '../../../components/status/person-avatars';
import type { Team } from '../api';
import { TeamIcon } from './team-icon';

const useStyles = makeStyles({
  named: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
  text: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
});

const col = dataTableColumns<Team>();
const NO_TEAMS: Team[] = [];

function useColumns(): DataTableColumn<Team>[] {
  const s = useStyles();
  return useMemo(
    () => [
      col.accessor('name', {
        header: 'Name',
        sortFn: 'text',
        cell: ({ row }) => (
          <span className={s.named}>
            <TeamIcon team={row.original} size={24} />
            <span className={s.text}>{row.original.name}</span>
          </span>
        ),
      }),
      col.accessor((t) => t.team_members.length, {
        id: 'members',
        header: 'Members',
        sortFn: 'basic',
        meta: { width: '110px', align: 'end' },
      }),
      col.accessor((t) => t.source ?? '', { id: 'source', header: 'Source', meta: { width: '120px' } }),
      col.accessor((t) => t.created_by?.name ?? '', {
        id: 'created_by',
        header: 'Created By',
        cell: ({ row }) =>
          row.original.created_by && <PersonAvatar person={row.original.created_by} size={20} showName />,
      }),
      col.accessor('created_at', {
        header: 'Created',
        sortFn: 'datetime',
        meta: { width: '120px' },
        cell: ({ getValue }) => <Age value={getValue()} />,
      }),
      col.accessor((t) => t.updated_at ?? '', {
        id: 'updated_at',
        header: 'Updated',
        sortFn: 'datetime',
        meta: { width: '120px' },
        cell: ({ getValue }) => <Age value={getValue()} />,
      }),
    ],
    [s],
  );
}

export function TeamTable({
  teams,
  loading,
  error,
  onOpen,
}: {
  teams: Team[] | undefined;
  loading: boolean;
  error: unknown;
  onOpen: (team: Team) => void;
}) {
  const columns = useColumns();
  if (error && !teams) {
    return (
      <EmptyState
        icon={<ErrorCircle24Regular />}
        title="Teams could not be loaded"
        description={errorMessage(error)}
        role="alert"
      />
    );
  }
  return (
    <DataTable
      label="Teams"
      columns={columns}
      data={teams ?? NO_TEAMS}
      getRowId={(t) => t.id}
      loading={loading}
      onRowClick={onOpen}
      defaultSort={{ id: 'name' }}
      emptyMessage="No resources found"
    />
  );
}
