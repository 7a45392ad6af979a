import { useState } from 'react';
import { useLocation } from 'wouter';
import { Button } from '@fluentui/react-components';
import { Add20Regular, ErrorCircle24Regular } from '@fluentui/react-icons';
import { DataTable } from '../../../components/data-table/data-table';
import { useDataTableState } from '../../../components/data-table/use-data-table-state';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { useIntegrations, type IntegrationRow } from '../api';
import { AddIntegrationDialog } from './add-integration-dialog';
import { useIntegrationColumns } from './integration-columns';
import type { DirectTarget } from './integration-tiles';

const NO_ROWS: IntegrationRow[] = [];

export interface IntegrationsListProps {
  /** Write on integrations (spec 001 §6): the Add Integration button. */
  canWrite: boolean;
  /** False when the logs feature is off: no Log Backends tile. */
  logsEnabled: boolean;
  integrationHref: (type: string, id: string) => string;
  /** Where 'Add Directly' goes for each kind. */
  newHref: (target: DirectTarget) => string;
}

/** /settings/integrations: scrapers, topologies and log backends with their last job, paged on the server. */
export function IntegrationsList({ canWrite, logsEnabled, integrationHref, newHref }: IntegrationsListProps) {
  const table = useDataTableState({ defaultSort: { id: 'name' } });
  const { pagination, sorting } = table.state;
  const integrations = useIntegrations({
    pageIndex: pagination.pageIndex,
    pageSize: pagination.pageSize,
    sortBy: sorting[0]?.id ?? 'name',
    desc: sorting[0]?.desc ?? false,
  });
  const columns = useIntegrationColumns();
  const [, navigate] = useLocation();
  const [adding, setAdding] = useState(false);

  return (
    <Page
      title="Integrations"
      onRefresh={() => void integrations.refetch()}
      refreshing={integrations.isFetching}
      extra={
        canWrite && (
          <Button appearance="primary" icon={<Add20Regular />} onClick={() => setAdding(true)}>
            Add Integration
          </Button>
        )
      }
    >
      {integrations.error && !integrations.data ? (
        <EmptyState
          icon={<ErrorCircle24Regular />}
          title="Integrations could not be loaded"
          description={errorMessage(integrations.error)}
          role="alert"
          actions={<Button onClick={() => void integrations.refetch()}>Try again</Button>}
        />
      ) : (
        <DataTable
          label="Integrations"
          columns={columns}
          data={integrations.data?.rows ?? NO_ROWS}
          getRowId={(r) => r.id}
          loading={integrations.isFetching}
          manual
          total={integrations.data?.total ?? 0}
          state={table}
          emptyMessage="No integrations yet"
          onRowClick={(r) => navigate(integrationHref(r.integration_type, r.id))}
        />
      )}
      {canWrite && (
        <AddIntegrationDialog open={adding} onOpenChange={setAdding} onDirect={(t) => navigate(newHref(t))} logsEnabled={logsEnabled} />
      )}
    </Page>
  );
}
