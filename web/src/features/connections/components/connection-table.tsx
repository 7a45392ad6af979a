import { useMemo } from 'react';
import { makeStyles, tokens } from '@fluentui/react-components';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import { connectionType, type Connection } from '@contracts/connections';
import { DataTable } from '../../../components/data-table/data-table';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { EmptyState } from '../../../components/empty-state';
import { Age } from '../../../components/status/age';
import { PersonAvatar } from '../../../components/status/person-avatars';
import { errorMessage } from '../../../lib/api-client';
import { ConnectionIcon } from './connection-icon';

const useStyles = makeStyles({
  name: { display: 'inline-flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
});

const col = dataTableColumns<Connection>();
const NONE: Connection[] = [];

/** The type as the tiles name it; an unknown type as stored. */
export const typeLabel = (type: string) => connectionType(type)?.label ?? type;

function useColumns(): DataTableColumn<Connection>[] {
  const s = useStyles();
  return useMemo(
    () => [
      col.accessor('name', {
        header: 'Name',
        sortFn: 'text',
        cell: ({ row }) => (
          <span className={s.name}>
            <ConnectionIcon icon={connectionType(row.original.type)?.icon} />
            {row.original.name}
          </span>
        ),
      }),
      col.accessor((c) => c.namespace ?? '', { id: 'namespace', header: 'Namespace', sortFn: 'text', meta: { width: '14%' } }),
      col.accessor((c) => typeLabel(c.type), { id: 'type', header: 'Type', sortFn: 'text', meta: { width: '14%' } }),
      col.accessor((c) => (typeof c.created_by === 'object' ? (c.created_by?.name ?? '') : ''), {
        id: 'created_by',
        header: 'Created By',
        meta: { width: '180px' },
        cell: ({ row }) => {
          const p = row.original.created_by;
          return p && typeof p === 'object' ? <PersonAvatar person={{ ...p, name: p.name ?? p.email ?? '' }} size={20} showName /> : null;
        },
      }),
      col.accessor((c) => c.created_at ?? '', {
        id: 'created_at',
        header: 'Created',
        sortFn: 'datetime',
        meta: { width: '120px' },
        cell: ({ getValue }) => <Age value={getValue()} />,
      }),
      col.accessor((c) => c.updated_at ?? '', {
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

export interface ConnectionTableProps {
  connections: Connection[] | undefined;
  loading: boolean;
  error: unknown;
  onOpen: (c: Connection) => void;
}

/** Name (type icon), Namespace, Type, Created By, Created, Updated; a row opens its form. */
export function ConnectionTable({ connections, loading, error, onOpen }: ConnectionTableProps) {
  const columns = useColumns();
  if (error && !connections) {
    return (
      <EmptyState
        icon={<ErrorCircle24Regular />}
        title="Connections could not be loaded"
        description={errorMessage(error)}
        role="alert"
      />
    );
  }
  return (
    <DataTable
      label="Connections"
      columns={columns}
      data={connections ?? NONE}
      getRowId={(c) => c.id}
      loading={loading}
      defaultSort={{ id: 'name' }}
      emptyMessage="No connections yet"
      onRowClick={onOpen}
    />
  );
}
