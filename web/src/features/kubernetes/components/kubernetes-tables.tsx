import { useMemo } from 'react';
import { makeStyles, Text, tokens } from '@fluentui/react-components';
import type { InvalidObject, KindStatus } from '@contracts/kubernetes';
import { DataTable } from '../../../components/data-table/data-table';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { Age } from '../../../components/status/age';
import { StatusBadge } from '../../../components/status/status-badge';

const useStyles = makeStyles({
  mono: { fontFamily: tokens.fontFamilyMonospace, fontSize: tokens.fontSizeBase200 },
  kind: { display: 'flex', flexDirection: 'column' },
  muted: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200 },
  error: { color: tokens.colorPaletteRedForeground1, whiteSpace: 'normal', overflowWrap: 'anywhere' },
});

const kindCol = dataTableColumns<KindStatus>();
const invalidCol = dataTableColumns<InvalidObject>();

/** One row per kind: whether its informer is watching, how many objects it holds, its last sync and error. */
export function KindsTable({ kinds, connected }: { kinds: KindStatus[]; connected: boolean }) {
  const s = useStyles();
  const columns = useMemo<DataTableColumn<KindStatus>[]>(
    () => [
      kindCol.accessor('kind', {
        header: 'Kind',
        sortFn: 'text',
        cell: ({ row }) => (
          <span className={s.kind}>
            <Text weight="semibold">{row.original.kind}</Text>
            <span className={s.muted}>
              {row.original.plural}.{row.original.group}/{row.original.version}
            </span>
          </span>
        ),
      }),
      kindCol.accessor('watching', {
        header: 'Watching',
        meta: { width: '130px' },
        cell: ({ getValue, row }) =>
          getValue() ? (
            <StatusBadge status="Watching" color="success" />
          ) : (
            <StatusBadge status={row.original.lastError ? 'Error' : 'Not watching'} color={row.original.lastError ? 'danger' : 'subtle'} />
          ),
      }),
      kindCol.accessor('objects', { header: 'Objects', meta: { width: '100px' }, sortFn: 'basic' }),
      kindCol.accessor((k) => k.lastSyncAt ?? '', {
        id: 'lastSyncAt',
        header: 'Last sync',
        sortFn: 'datetime',
        meta: { width: '130px' },
        cell: ({ getValue }) => (getValue() ? <Age value={getValue()} /> : 'Never'),
      }),
      kindCol.accessor((k) => k.lastError ?? '', {
        id: 'lastError',
        header: 'Last error',
        cell: ({ getValue }) => (getValue() ? <span className={s.error}>{getValue()}</span> : '—'),
      }),
    ],
    [s],
  );
  return (
    <DataTable
      label="Watched kinds"
      columns={columns}
      data={kinds}
      getRowId={(k) => `${k.group}/${k.plural}`}
      paginate={false}
      urlState={false}
      defaultSort={{ id: 'kind' }}
      emptyMessage={connected ? 'No kinds are watched' : 'Nothing is watched without a cluster connection'}
    />
  );
}

/** Custom resources that failed validation, newest first. */
export function InvalidObjectsTable({ objects }: { objects: InvalidObject[] }) {
  const s = useStyles();
  const columns = useMemo<DataTableColumn<InvalidObject>[]>(
    () => [
      invalidCol.accessor('kind', { header: 'Kind', meta: { width: '140px' }, sortFn: 'text' }),
      invalidCol.accessor((o) => `${o.namespace}/${o.name}`, {
        id: 'name',
        header: 'Resource',
        sortFn: 'text',
        meta: { width: '28%' },
        cell: ({ getValue }) => <span className={s.mono}>{getValue()}</span>,
      }),
      invalidCol.accessor('error', { header: 'Error', cell: ({ getValue }) => <span className={s.error}>{getValue()}</span> }),
      invalidCol.accessor('at', {
        header: 'Seen',
        sortFn: 'datetime',
        meta: { width: '120px' },
        cell: ({ getValue }) => <Age value={getValue()} />,
      }),
    ],
    [s],
  );
  return (
    <DataTable
      label="Invalid resources"
      columns={columns}
      data={objects}
      getRowId={(o) => `${o.kind}/${o.namespace}/${o.name}`}
      paginate={false}
      urlState={false}
      defaultSort={{ id: 'at', desc: true }}
      emptyMessage="Every custom resource is valid"
    />
  );
}
