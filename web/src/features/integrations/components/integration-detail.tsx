import { useMemo, useState, type ReactNode } from 'react';
import { Link } from 'wouter';
import { stringify } from 'yaml';
import {
  Breadcrumb,
  BreadcrumbButton,
  BreadcrumbDivider,
  BreadcrumbItem,
  Button,
  makeStyles,
  Spinner,
  Tab,
  TabList,
  Text,
  tokens,
} from '@fluentui/react-components';
import { Edit20Regular, ErrorCircle24Regular, PlugDisconnected24Regular, QuestionCircle24Regular } from '@fluentui/react-icons';
import { CodeViewer } from '../../../components/code/code-viewer';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { useIntegrationResource } from '../api';
import { integrationType, INTEGRATION_TYPES, type IntegrationType } from '../types';

const useStyles = makeStyles({
  tabs: { margin: `${tokens.spacingVerticalS} 0 ${tokens.spacingVerticalM}` },
  specBar: { display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: tokens.spacingHorizontalM, marginBottom: tokens.spacingVerticalS },
  muted: { color: tokens.colorNeutralForeground3 },
});

export interface IntegrationDetailProps {
  type: string | undefined;
  id: string;
  listHref: string;
  /** The stored resource's own editor, /settings/{table}/{id}. */
  editHref: (table: string, id: string) => string;
  /** The Job History tab's content for the resource (job_history rows with its resource_id). */
  jobHistory: (resourceId: string) => ReactNode;
}

type DetailTab = 'spec' | 'jobHistory';

function Crumbs({ listHref, name }: { listHref: string; name?: string }) {
  return (
    <Breadcrumb aria-label="Breadcrumb" size="medium">
      {/* there is no Settings index page: the sidebar's Settings group is the way up */}
      <BreadcrumbItem>Settings</BreadcrumbItem>
      <BreadcrumbDivider />
      <BreadcrumbItem>
        <Link href={listHref} asChild>
          <BreadcrumbButton as="a" href={listHref}>Integrations</BreadcrumbButton>
        </Link>
      </BreadcrumbItem>
      {name && (
        <>
          <BreadcrumbDivider />
          <BreadcrumbItem>
            <BreadcrumbButton current>{name}</BreadcrumbButton>
          </BreadcrumbItem>
        </>
      )}
    </Breadcrumb>
  );
}

/** /settings/integrations/{type}/{id}: Spec (read-only, with a link to its editor) and Job History. */
export function IntegrationDetail({ type, id, listHref, editHref, jobHistory }: IntegrationDetailProps) {
  const known = integrationType(type);
  if (!known) {
    return (
      <Page title="Integration">
        <Crumbs listHref={listHref} />
        <EmptyState
          icon={<QuestionCircle24Regular />}
          title="Unknown type"
          description="An integration is a catalog scraper (scrapers), a topology (topologies) or a log backend (logging_backends)."
        />
      </Page>
    );
  }
  return <KnownIntegration type={known} id={id} listHref={listHref} editHref={editHref} jobHistory={jobHistory} />;
}

function KnownIntegration({ type, id, listHref, editHref, jobHistory }: Omit<IntegrationDetailProps, 'type'> & { type: IntegrationType }) {
  const s = useStyles();
  const resource = useIntegrationResource(type, id);
  const [tab, setTab] = useState<DetailTab>('spec');
  const { label, table } = INTEGRATION_TYPES[type];
  // trimmed: the writer's final newline would show as an empty last line
  const specYaml = useMemo(() => (resource.data ? stringify(resource.data.spec ?? {}).trimEnd() : ''), [resource.data]);

  if (resource.isLoading) {
    return (
      <Page title={label}>
        <Spinner label="Loading…" />
      </Page>
    );
  }
  const r = resource.data;
  if (!r) {
    return (
      <Page title={label}>
        <Crumbs listHref={listHref} />
        <EmptyState
          icon={resource.error ? <ErrorCircle24Regular /> : <PlugDisconnected24Regular />}
          title={resource.error ? 'The integration could not be loaded' : 'No resources found'}
          description={resource.error ? errorMessage(resource.error) : `There is no ${label.toLowerCase()} with this id; it may have been deleted.`}
          role={resource.error ? 'alert' : 'status'}
        />
      </Page>
    );
  }
  const href = editHref(table, r.id);
  return (
    <Page title={r.name} onRefresh={() => void resource.refetch()} refreshing={resource.isFetching}>
      <Crumbs listHref={listHref} name={r.name} />
      <TabList className={s.tabs} selectedValue={tab} onTabSelect={(_, d) => setTab(d.value as DetailTab)} aria-label={label}>
        <Tab value="spec">Spec</Tab>
        <Tab value="jobHistory">Job History</Tab>
      </TabList>
      {tab === 'spec' ? (
        <>
          <div className={s.specBar}>
            <Text className={s.muted}>
              {label}
              {r.source ? ` · source ${r.source}` : ''}
            </Text>
            <Link href={href} asChild>
              <Button as="a" href={href} icon={<Edit20Regular />}>
                Edit {label}
              </Button>
            </Link>
          </div>
          <CodeViewer code={specYaml} language="yaml" label={`${r.name} spec`} />
        </>
      ) : (
        jobHistory(r.id)
      )}
    </Page>
  );
}
