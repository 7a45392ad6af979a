import { IntegrationDetail } from '../../features/integrations/components/integration-detail';
import { IntegrationsList } from '../../features/integrations/components/integrations-list';
// the one job history table of a settings resource: the integration's own editor shows the same one
import { JobHistoryTable } from '../../features/settings-resources/components/job-history-table';
import { pathTo, paths } from '../paths';
import { useSession } from '../session-context';

const integrationHref = (type: string, id: string) => pathTo(paths.settingsIntegration, { type, id });
const editHref = (table: string, id: string) => pathTo(paths.settingsTableItem, { table, id });
const newHref = (table: string) => editHref(table, 'new');

/** /settings/integrations */
export function SettingsIntegrationsPage() {
  const session = useSession();
  return (
    <IntegrationsList
      canWrite={session.can('integrations', 'write')}
      // the Log Backends tile opens /settings/logging_backends/new, which its own flag also turns off
      logsEnabled={session.enabled('logs') && session.enabled('settings.logging_backends')}
      integrationHref={integrationHref}
      newHref={newHref}
    />
  );
}

/** /settings/integrations/{type}/{id} (write on integrations; the route table checks it). */
export function SettingsIntegrationPage({ params }: { params: Record<string, string | undefined> }) {
  return (
    <IntegrationDetail
      key={`${params.type}:${params.id}`}
      type={params.type}
      id={params.id ?? ''}
      listHref={paths.settingsIntegrations}
      editHref={editHref}
      jobHistory={(id) => <JobHistoryTable resourceId={id} />}
    />
  );
}
