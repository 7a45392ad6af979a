import { useMemo } from 'react';
import { Button, makeStyles, tokens, Tooltip } from '@fluentui/react-components';
import { Delete20Regular, Edit20Regular, ErrorCircle24Regular } from '@fluentui/react-icons';
import { DataTable } from '../../../components/data-table/data-table';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { EmptyState } from '../../../components/empty-state';
import { errorMessage } from '../../../lib/api-client';
import { Age } from '../../../components/status/age';
import { PersonAvatar } from '../../../components/status/person-avatars';
import { StatusBadge } from '../../../components/status/status-badge';
import { isEditable, LOCAL_FLAG_TEXT, type FeatureFlag } from '../api';

const useStyles = makeStyles({
  mono: { fontFamily: tokens.fontFamilyMonospace, fontSize: tokens.fontSizeBase200 },
  actions: { display: 'flex', gap: tokens.spacingHorizontalXXS },
});

export interface FlagActions {
  onEdit: (flag: FeatureFlag) => void;
  onDelete: (flag: FeatureFlag) => void;
}

const col = dataTableColumns<FeatureFlag>();
const NONE: FeatureFlag[] = [];

function useColumns(actions?: FlagActions): DataTableColumn<FeatureFlag>[] {
  const s = useStyles();
  return useMemo(() => {
    const list: DataTableColumn<FeatureFlag>[] = [
      col.accessor('name', {
        header: 'Name',
        sortFn: 'text',
        cell: ({ getValue }) => <span className={s.mono}>{getValue()}</span>,
      }),
      col.accessor('value', {
        header: 'Value',
        meta: { width: '22%' },
        cell: ({ getValue }) => <span className={s.mono}>{getValue()}</span>,
      }),
      col.accessor('source', {
        header: 'Source',
        meta: { width: '100px' },
        cell: ({ getValue }) => (
          <StatusBadge status={getValue()} color={getValue() === 'local' ? 'warning' : 'informative'} />
        ),
      }),
      col.accessor((f) => f.created_by?.name ?? '', {
        id: 'created_by',
        header: 'Created By',
        meta: { width: '180px' },
        cell: ({ row }) =>
          row.original.created_by && <PersonAvatar person={row.original.created_by} size={20} showName />,
      }),
      col.accessor((f) => f.updated_at ?? f.created_at ?? '', {
        id: 'updated_at',
        header: 'Updated',
        sortFn: 'datetime',
        meta: { width: '120px' },
        cell: ({ getValue }) => <Age value={getValue()} />,
      }),
    ];
    if (actions) {
      list.push(
        col.display({
          id: 'actions',
          header: 'Actions',
          meta: { width: '100px' },
          cell: ({ row }) => {
            const f = row.original;
            const locked = !isEditable(f);
            return (
              <span className={s.actions}>
                <Tooltip content={locked ? LOCAL_FLAG_TEXT : `Edit ${f.name}`} relationship="label">
                  <Button
                    appearance="subtle"
                    size="small"
                    icon={<Edit20Regular />}
                    disabledFocusable={locked}
                    onClick={() => actions.onEdit(f)}
                  />
                </Tooltip>
                <Tooltip content={locked ? LOCAL_FLAG_TEXT : `Delete ${f.name}`} relationship="label">
                  <Button
                    appearance="subtle"
                    size="small"
                    icon={<Delete20Regular />}
                    disabledFocusable={locked}
                    onClick={() => actions.onDelete(f)}
                  />
                </Tooltip>
              </span>
            );
          },
        }),
      );
    }
    return list;
  }, [actions, s]);
}

export function FeatureFlagTable({
  flags,
  loading,
  error,
  actions,
}: {
  flags: FeatureFlag[] | undefined;
  loading: boolean;
  error: unknown;
  actions?: FlagActions;
}) {
  const columns = useColumns(actions);
  if (error && !flags) {
    return (
      <EmptyState
        icon={<ErrorCircle24Regular />}
        title="Feature flags could not be loaded"
        description={errorMessage(error)}
        role="alert"
      />
    );
  }
  return (
    <DataTable
      label="Feature flags"
      columns={columns}
      data={flags ?? NONE}
      getRowId={(f) => f.name}
      loading={loading}
      defaultSort={{ id: 'name' }}
      emptyMessage="No feature flags yet"
    />
  );
}
