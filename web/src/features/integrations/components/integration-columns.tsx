import { useMemo } from 'react';
import { makeStyles, Text, tokens } from '@fluentui/react-components';
import { DocumentBulletList20Regular, Organization20Regular, TextBulletListSquareSearch20Regular } from '@fluentui/react-icons';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { Age } from '../../../components/status/age';
import { JobStatusBadge } from '../../../components/status/job-status';
import { PersonAvatar } from '../../../components/status/person-avatars';
import type { IntegrationRow } from '../api';
import { integrationType, INTEGRATION_TYPES } from '../types';

const LOCAL_AGENT = '00000000-0000-0000-0000-000000000000';

const useStyles = makeStyles({
  name: { display: 'inline-flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
  icon: { flexShrink: 0, color: tokens.colorNeutralForeground3 },
  agent: { color: tokens.colorNeutralForeground3 },
  none: { color: tokens.colorNeutralForeground4 },
});

const TYPE_ICONS = {
  scrapers: TextBulletListSquareSearch20Regular,
  topologies: Organization20Regular,
  logging_backends: DocumentBulletList20Regular,
} as const;

/** The type's icon (a generic one for a type this page does not know). */
export function IntegrationIcon({ type, className }: { type: string; className?: string }) {
  const known = integrationType(type);
  const Icon = known ? TYPE_ICONS[known] : DocumentBulletList20Regular;
  return <Icon className={className} aria-hidden />;
}

/** How the page names a type: 'Catalog Scraper', 'Topology', 'Log Backend', else the stored word. */
export function integrationLabel(type: string): string {
  const known = integrationType(type);
  return known ? INTEGRATION_TYPES[known].label : type;
}

const col = dataTableColumns<IntegrationRow>();

/** The columns of the reference's integrations table, plus Type (the reference only shows it as the name's icon). */
export function useIntegrationColumns(): DataTableColumn<IntegrationRow>[] {
  const s = useStyles();
  return useMemo(
    () => [
      col.accessor('name', {
        header: 'Name',
        meta: { width: '280px' },
        cell: ({ row }) => {
          const r = row.original;
          const agent = r.agent?.id && r.agent.id !== LOCAL_AGENT ? r.agent.name : null;
          return (
            <span className={s.name}>
              <IntegrationIcon type={r.integration_type} className={s.icon} />
              <Text weight="semibold" truncate wrap={false}>{r.name}</Text>
              {agent && <Text size={200} className={s.agent}>{agent}</Text>}
            </span>
          );
        },
      }),
      col.accessor('integration_type', { id: 'type', header: 'Type', meta: { width: '150px' }, cell: ({ getValue }) => integrationLabel(getValue()) }),
      col.accessor((r) => r.namespace ?? '', { id: 'namespace', header: 'Namespace', meta: { width: '150px' } }),
      col.accessor((r) => r.source ?? '', { id: 'source', header: 'Source', meta: { width: '130px' } }),
      col.accessor((r) => r.job_status ?? '', {
        id: 'job_status',
        header: 'Job Status',
        meta: { width: '120px' },
        cell: ({ getValue }) => <JobStatusBadge status={getValue()} />,
      }),
      col.accessor((r) => r.job_time_start ?? '', {
        id: 'last_run',
        header: 'Last Run',
        meta: { width: '120px' },
        cell: ({ getValue }) => (getValue() ? <Age value={getValue()} /> : <span className={s.none}>Never</span>),
      }),
      col.accessor((r) => r.creator_name ?? '', {
        id: 'created_by',
        header: 'Created By',
        enableSorting: false,
        meta: { width: '170px' },
        cell: ({ row }) =>
          row.original.creator_name ? (
            <PersonAvatar person={{ name: row.original.creator_name, avatar: row.original.creator_avatar }} showName />
          ) : null,
      }),
      col.accessor((r) => r.created_at ?? '', { id: 'created_at', header: 'Created', meta: { width: '110px' }, cell: ({ getValue }) => <Age value={getValue() || null} /> }),
      col.accessor((r) => r.updated_at ?? '', { id: 'updated_at', header: 'Updated', meta: { width: '110px' }, cell: ({ getValue }) => <Age value={getValue() || null} /> }),
    ],
    [s],
  );
}
