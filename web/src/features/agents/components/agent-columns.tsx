import { useMemo } from 'react';
import { Badge } from '@fluentui/react-components';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { Age } from '../../../components/status/age';
import { PersonAvatar } from '../../../components/status/person-avatars';
import { formatDateTime } from '../../../lib/format';
import { agentStatus, type AgentSummary } from '../model';

const col = dataTableColumns<AgentSummary>();
const count = (v: number | null | undefined) => v ?? 0;

/** Online (green) or Offline, from `last_seen` and `now` (re-evaluated by the caller's clock). */
export function AgentStatusBadge({ lastSeen, now }: { lastSeen: string | null | undefined; now: number }) {
  const status = agentStatus(lastSeen, now);
  return (
    <Badge appearance="tint" color={status === 'Online' ? 'success' : 'subtle'} title={lastSeen ? `Last seen ${formatDateTime(lastSeen)}` : 'Never seen'}>
      {status}
    </Badge>
  );
}

/** Spec 000 §2 "Agents page": Name, Configs, Checks, Scrapers, Playbook Runs, Status, Last Pushed, Created At, Updated At, Created By. */
export function useAgentColumns(now: number): DataTableColumn<AgentSummary>[] {
  return useMemo(
    () => [
      col.accessor('name', { id: 'name', header: 'Name' }),
      col.accessor((r) => count(r.config_count), { id: 'config_count', header: 'Configs', meta: { width: '90px' } }),
      col.accessor((r) => count(r.checks_count), { id: 'checks_count', header: 'Checks', meta: { width: '90px' } }),
      col.accessor((r) => count(r.config_scrapper_count), { id: 'config_scrapper_count', header: 'Scrapers', meta: { width: '90px' } }),
      col.accessor((r) => count(r.playbook_runs_count), { id: 'playbook_runs_count', header: 'Playbook Runs', meta: { width: '120px' } }),
      col.accessor((r) => r.last_seen ?? '', {
        id: 'last_seen',
        header: 'Status',
        meta: { width: '100px' },
        cell: ({ row }) => <AgentStatusBadge lastSeen={row.original.last_seen} now={now} />,
      }),
      col.accessor((r) => r.last_received ?? '', {
        id: 'last_received',
        header: 'Last Pushed',
        meta: { width: '130px' },
        cell: ({ row }) => (row.original.last_received ? <Age value={row.original.last_received} now={now} /> : 'Never'),
      }),
      col.accessor((r) => r.created_at ?? '', {
        id: 'created_at',
        header: 'Created At',
        meta: { width: '130px' },
        cell: ({ row }) => <Age value={row.original.created_at} now={now} />,
      }),
      col.accessor((r) => r.updated_at ?? '', {
        id: 'updated_at',
        header: 'Updated At',
        meta: { width: '130px' },
        cell: ({ row }) => <Age value={row.original.updated_at} now={now} />,
      }),
      col.accessor((r) => (typeof r.created_by === 'object' ? (r.created_by?.name ?? '') : ''), {
        id: 'created_by',
        header: 'Created By',
        enableSorting: false,
        meta: { width: '170px' },
        cell: ({ row }) => {
          const p = row.original.created_by;
          return p && typeof p === 'object' ? <PersonAvatar person={{ ...p, name: p.name ?? p.email ?? '' }} size={20} showName /> : null;
        },
      }),
    ],
    [now],
  );
}
