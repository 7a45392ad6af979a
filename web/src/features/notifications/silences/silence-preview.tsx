import { useMemo } from 'react';
import { MessageBar, MessageBarBody, Spinner, Text } from '@fluentui/react-components';
import { dataTableColumns, type DataTableColumn } from '../../../components/data-table/columns';
import { DataTable } from '../../../components/data-table/data-table';
import { Age } from '../../../components/status/age';
import { errorMessage } from '../../../lib/api-client';
import type { PreviewRow } from './api';

const col = dataTableColumns<PreviewRow>();

function useColumns(): DataTableColumn<PreviewRow>[] {
  return useMemo(
    () => [
      col.accessor((r) => r.created_at ?? '', {
        id: 'created_at',
        header: 'Age',
        meta: { width: '110px' },
        cell: ({ getValue }) => <Age value={getValue() as string} />,
      }),
      col.accessor((r) => r.resource?.name ?? r.resource_id ?? '', { id: 'resource', header: 'Resource' }),
      col.accessor((r) => r.resource_type ?? r.resource?.type ?? '', { id: 'type', header: 'Type', meta: { width: '18%' } }),
      col.accessor((r) => r.source_event ?? '', { id: 'event', header: 'Event', meta: { width: '18%' } }),
    ],
    [],
  );
}

export interface SilencePreviewProps {
  rows: PreviewRow[] | undefined;
  error: unknown;
  running: boolean;
}

/** What Preview found: the sends of the last 15 days this silence would have silenced. */
export function SilencePreview({ rows, error, running }: SilencePreviewProps) {
  const columns = useColumns();
  if (running) return <Spinner size="small" label="Finding notifications this silence would have silenced…" />;
  if (error) {
    return (
      <MessageBar intent="error">
        <MessageBarBody>{errorMessage(error)}</MessageBarBody>
      </MessageBar>
    );
  }
  if (!rows) return null;
  return (
    <section aria-label="Preview">
      <Text as="p" role="status">
        {rows.length
          ? `${rows.length} notification${rows.length === 1 ? '' : 's'} sent in the last 15 days would have been silenced`
          : 'No notification sent in the last 15 days would have been silenced'}
      </Text>
      {rows.length > 0 && (
        <DataTable label="Notifications this silence would have silenced" columns={columns} data={rows} getRowId={(r) => r.id} paginate={false} urlState={false} defaultSort={{ id: 'created_at', desc: true }} />
      )}
    </section>
  );
}
