import { lazy, Suspense, useState } from 'react';
import { Button, Spinner } from '@fluentui/react-components';
import { Link20Regular } from '@fluentui/react-icons';
import { ConfigDetailView, type ConfigTabName } from '../../features/catalog/components/config-detail';
import type { SelectedConfigLines } from '../../features/catalog/components/config-tab';
import { useSession } from '../session-context';

// the other features' tab bodies and the incidents dialog load with the tab or the click that shows them
const ConfigChangesTab = lazy(() =>
  import('../../features/catalog-changes/config-changes-tab').then((m) => ({ default: m.ConfigChangesTab })),
);
const ConfigInsightsTab = lazy(() =>
  import('../../features/catalog-insights/config-insights-tab').then((m) => ({ default: m.ConfigInsightsTab })),
);
const ConfigRelationshipsTab = lazy(() =>
  import('../../features/catalog-relationships/config-relationships-tab').then((m) => ({ default: m.ConfigRelationshipsTab })),
);
const LinkToIncidentDialog = lazy(() =>
  import('../../features/incidents/components/link-to-incident-dialog').then((m) => ({ default: m.LinkToIncidentDialog })),
);

const TABS = { changes: ConfigChangesTab, insights: ConfigInsightsTab, relationships: ConfigRelationshipsTab };

/** The lazy tabs; Unlink on Relationships only for those who may write the catalog (the server refuses others). */
const tabRenderer = (canWrite: boolean) => (tab: keyof typeof TABS, configId: string) => {
  const Tab = TABS[tab];
  return (
    <Suspense fallback={<Spinner size="small" label="Loading…" />}>
      {tab === 'relationships' ? <ConfigRelationshipsTab configId={configId} canWrite={canWrite} /> : <Tab configId={configId} />}
    </Suspense>
  );
};

/** The selected lines become a `config` evidence (spec 000 "Link to Incident"): the item, the lines by number. */
function AttachLines({ selection, currentUserId }: { selection: SelectedConfigLines; currentUserId: string }) {
  const [open, setOpen] = useState(false);
  const count = Object.keys(selection.lines).length;
  return (
    <>
      <Button icon={<Link20Regular />} onClick={() => setOpen(true)}>
        Attach {count} {count === 1 ? 'line' : 'lines'} to incident
      </Button>
      {open && (
        <Suspense fallback={null}>
          <LinkToIncidentDialog
            currentUserId={currentUserId}
            onClose={() => setOpen(false)}
            target={{
              checkId: '',
              name: selection.name,
              noun: 'catalog item',
              evidence: {
                type: 'config',
                config_id: selection.configId,
                evidence: {
                  configName: selection.name,
                  configType: selection.type,
                  format: selection.format,
                  selected: selection.selected,
                  lines: selection.lines,
                },
              },
            }}
          />
        </Suspense>
      )}
    </>
  );
}

function ConfigItemPage({ params, tab }: { params: Record<string, string | undefined>; tab: ConfigTabName }) {
  const session = useSession();
  // spec 000 §6: attaching evidence needs write on incidents and the incidents feature enabled
  const canLink = session.can('incident', 'write') && session.enabled('incidents');
  return (
    <ConfigDetailView
      configId={params.id ?? ''}
      tab={tab}
      renderTab={tabRenderer(session.can('database', 'write') && session.enabled('config'))}
      renderAttach={canLink ? (selection) => <AttachLines selection={selection} currentUserId={session.user.id} /> : undefined}
    />
  );
}

type PageProps = { params: Record<string, string | undefined> };

/** /catalog/{id} */
export const ConfigPage = (p: PageProps) => <ConfigItemPage {...p} tab="config" />;
/** /catalog/{id}/changes */
export const ConfigChangesPage = (p: PageProps) => <ConfigItemPage {...p} tab="changes" />;
/** /catalog/{id}/insights */
export const ConfigInsightsPage = (p: PageProps) => <ConfigItemPage {...p} tab="insights" />;
/** /catalog/{id}/relationships */
export const ConfigRelationshipsPage = (p: PageProps) => <ConfigItemPage {...p} tab="relationships" />;
/** /catalog/{id}/playbooks */
export const ConfigPlaybooksPage = (p: PageProps) => <ConfigItemPage {...p} tab="playbooks" />;
/** /catalog/{id}/checks */
export const ConfigChecksPage = (p: PageProps) => <ConfigItemPage {...p} tab="checks" />;
