import { useMemo } from 'react';
import { Button, makeStyles, tokens, Tooltip } from '@fluentui/react-components';
import { Delete20Regular, Edit20Regular, ErrorCircle24Regular } from '@fluentui/react-icons';
import type { UserSummary } from '@contracts/auth';
import { primaryRole } from '@contracts/rbac';
import { DataTable } from '../../../components/data-table/data-table';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { EmptyState } from '../../../components/empty-state';
import { errorMessage } from '../../../lib/api-client';
import { Age } from '../../../components/status/age';
import { PersonAvatar } from '../../../components/status/person-avatars';
import { StatusBadge } from '../../../components/status/status-badge';

const useStyles = makeStyles({
  actions: { display: 'flex', gap: tokens.spacingHorizontalXXS },
});

export interface UserActions {
  onEdit: (user: UserSummary) => void;
  onDelete: (user: UserSummary) => void;
  currentUserId: string;
}

const col = dataTableColumns<UserSummary>();

function useColumns(actions?: UserActions): DataTableColumn<UserSummary>[] {
  const s = useStyles();
  return useMemo(() => {
    const columns: DataTableColumn<UserSummary>[] = [
      col.accessor('name', {
        header: 'Name',
        sortFn: 'text',
        cell: ({ row }) => <PersonAvatar person={row.original} showName />,
      }),
      col.accessor('email', { header: 'Email', cell: ({ getValue }) => getValue() ?? '' }),
      col.accessor((u) => primaryRole(u.roles), {
        id: 'roles',
        header: 'Roles',
        meta: { width: '130px' },
        // several roles: the highest is shown (spec 001, section 6)
        cell: ({ getValue, row }) => (
          <Tooltip content={row.original.roles.join(', ') || 'viewer'} relationship="description">
            <span>
              <StatusBadge status={getValue()} color="brand" />
            </span>
          </Tooltip>
        ),
      }),
      col.accessor('state', {
        header: 'State',
        meta: { width: '110px' },
        cell: ({ getValue }) => (
          <StatusBadge status={getValue()} color={getValue() === 'active' ? 'success' : 'subtle'} />
        ),
      }),
      col.accessor('created_at', {
        header: 'Created At',
        sortFn: 'datetime',
        meta: { width: '140px' },
        cell: ({ getValue }) => <Age value={getValue()} />,
      }),
    ];
    if (actions) {
      columns.push(
        col.display({
          id: 'actions',
          header: 'Actions',
          meta: { width: '100px' },
          cell: ({ row }) => {
            const self = row.original.id === actions.currentUserId;
            return (
              <span className={s.actions}>
                <Tooltip content={`Edit ${row.original.name}`} relationship="label">
                  <Button
                    appearance="subtle"
                    size="small"
                    icon={<Edit20Regular />}
                    onClick={() => actions.onEdit(row.original)}
                  />
                </Tooltip>
                <Tooltip
                  content={self ? 'You cannot delete yourself' : `Delete ${row.original.name}`}
                  relationship="label"
                >
                  <Button
                    appearance="subtle"
                    size="small"
                    icon={<Delete20Regular />}
                    disabledFocusable={self}
                    onClick={() => actions.onDelete(row.original)}
                  />
                </Tooltip>
              </span>
            );
          },
        }),
      );
    }
    return columns;
  }, [actions, s]);
}

export interface UserTableProps {
  users: UserSummary[] | undefined;
  loading: boolean;
  error: unknown;
  actions?: UserActions;
}

const NO_USERS: UserSummary[] = [];

export function UserTable({ users, loading, error, actions }: UserTableProps) {
  const columns = useColumns(actions);
  if (error && !users) {
    return (
      <EmptyState
        icon={<ErrorCircle24Regular />}
        title="Users could not be loaded"
        description={errorMessage(error)}
        role="alert"
      />
    );
  }
  return (
    <DataTable
      label="Users"
      columns={columns}
      data={users ?? NO_USERS}
      getRowId={(u) => u.id}
      loading={loading}
      defaultSort={{ id: 'name' }}
      emptyMessage="No users yet"
    />
  );
}
