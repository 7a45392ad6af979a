import { useState } from 'react';
import { Button } from '@fluentui/react-components';
import { Add20Regular, ErrorCircle24Regular } from '@fluentui/react-icons';
import { DataTable } from '../../../components/data-table/data-table';
import { useDataTableState } from '../../../components/data-table/use-data-table-state';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { useUrlState } from '../../../lib/url-state';
import { useAgentsList } from '../api';
import { AGENT_PAGE_SIZE, AGENT_PAGE_SIZES, type AgentCreateValues, type AgentSummary, type GeneratedAgent } from '../model';
import { useNow } from '../use-now';
import { useAgentColumns } from './agent-columns';
import { CreateAgentDialog } from './create-agent-dialog';
import { EditAgentDialog } from './edit-agent-dialog';
import { InstallDialog } from './install-dialog';

const NO_ROWS: AgentSummary[] = [];
export const EMPTY_AGENTS = 'No agents yet';

/**
 * /agents (= /settings/agents): agents_summary server-sorted and paged from the URL (`sortBy`, `sortOrder`,
 * `pageIndex`, `pageSize` 50/100/200); `addAgent=true` opens Create, `id=` the editor. Live: an `agents` change
 * (ping, push, edit) refetches the page; Status re-evaluates every 5 s between fetches.
 */
export function AgentsList({ canWrite }: { canWrite: boolean }) {
  const [dialogs, setDialogs] = useUrlState({ addAgent: false as boolean, id: '' });
  const table = useDataTableState({ defaultSort: { id: 'created_at', desc: true }, defaultPageSize: AGENT_PAGE_SIZE, pageSizes: AGENT_PAGE_SIZES });
  const { sorting, pagination } = table.state;
  const params = { sortBy: sorting[0]?.id ?? 'created_at', desc: sorting[0]?.desc ?? true, ...pagination };
  const agents = useAgentsList(params);
  const now = useNow();
  const columns = useAgentColumns(now);
  const [installing, setInstalling] = useState<{ agent: GeneratedAgent; values: AgentCreateValues } | null>(null);

  return (
    <Page
      title="Agents"
      onRefresh={() => void agents.refetch()}
      refreshing={agents.isFetching}
      extra={
        canWrite && (
          <Button appearance="primary" icon={<Add20Regular />} onClick={() => setDialogs({ addAgent: true }, { replace: false })}>
            Add Agent
          </Button>
        )
      }
    >
      {agents.error && !agents.data ? (
        <EmptyState
          icon={<ErrorCircle24Regular />}
          title="Agents could not be loaded"
          description={errorMessage(agents.error)}
          role="alert"
          actions={<Button onClick={() => void agents.refetch()}>Try again</Button>}
        />
      ) : (
        <DataTable
          label="Agents"
          columns={columns}
          data={agents.data?.rows ?? NO_ROWS}
          getRowId={(r) => r.id}
          loading={agents.isFetching}
          manual
          total={agents.data?.total ?? 0}
          state={table}
          pageSizes={AGENT_PAGE_SIZES}
          defaultPageSize={AGENT_PAGE_SIZE}
          emptyMessage={EMPTY_AGENTS}
          onRowClick={(r) => setDialogs({ id: r.id }, { replace: false })}
        />
      )}
      {dialogs.addAgent && canWrite && (
        <CreateAgentDialog
          onClose={() => setDialogs({ addAgent: false })}
          onCreated={(agent, values) => {
            setInstalling({ agent, values });
            setDialogs({ addAgent: false });
          }}
        />
      )}
      {installing && <InstallDialog agent={installing.agent} values={installing.values} onClose={() => setInstalling(null)} />}
      {dialogs.id && <EditAgentDialog id={dialogs.id} canWrite={canWrite} onClose={() => setDialogs({ id: '' })} />}
    </Page>
  );
}
