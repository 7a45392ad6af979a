import { useState } from 'react';
import { Link } from 'wouter';
import {
  Breadcrumb,
  BreadcrumbButton,
  BreadcrumbDivider,
  BreadcrumbItem,
  makeStyles,
  Spinner,
  Tab,
  TabList,
  tokens,
} from '@fluentui/react-components';
import { ErrorCircle24Regular, HeartPulse24Regular } from '@fluentui/react-icons';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { useCanary } from '../api';
import { CanaryEditor } from './canary-editor';
import { JobHistoryTable } from './job-history-table';

const useStyles = makeStyles({
  tabs: { margin: `${tokens.spacingVerticalS} 0 ${tokens.spacingVerticalM}` },
});

export interface CanaryDetailProps {
  /** Absent on /settings/canaries/new. */
  id?: string;
  canWrite: boolean;
  listHref: string;
  canaryHref: (id: string) => string;
}

/** /settings/canaries/{id} and /new: breadcrumb, the spec editor and (for a saved canary) its job history. */
export function CanaryDetail({ id, canWrite, listHref, canaryHref }: CanaryDetailProps) {
  const s = useStyles();
  const canary = useCanary(id);
  const [tab, setTab] = useState<'spec' | 'jobHistory'>('spec');
  // bumped by the editor's Reload (after a conflict): the editor starts again from the canary as it is now
  const [edition, setEdition] = useState(0);
  const crumbs = (name?: string) => (
    <Breadcrumb aria-label="Breadcrumb" size="medium">
      {/* there is no Settings index page: the sidebar's Settings group is the way up */}
      <BreadcrumbItem>Settings</BreadcrumbItem>
      <BreadcrumbDivider />
      <BreadcrumbItem>
        <Link href={listHref} asChild>
          <BreadcrumbButton as="a" href={listHref}>Health Checks</BreadcrumbButton>
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

  if (!id) {
    return (
      <Page title="Add Health Check">
        {crumbs('New')}
        <div className={s.tabs} />
        <CanaryEditor canWrite={canWrite} listHref={listHref} canaryHref={canaryHref} />
      </Page>
    );
  }
  if (canary.isLoading) {
    return (
      <Page title="Health Check">
        <Spinner label="Loading…" />
      </Page>
    );
  }
  if (!canary.data) {
    return (
      <Page title="Health Check">
        {crumbs()}
        <EmptyState
          icon={canary.error ? <ErrorCircle24Regular /> : <HeartPulse24Regular />}
          title={canary.error ? 'The health check could not be loaded' : 'No resources found'}
          description={canary.error ? errorMessage(canary.error) : 'There is no health check with this id; it may have been deleted.'}
          role={canary.error ? 'alert' : 'status'}
        />
      </Page>
    );
  }
  const c = canary.data;
  return (
    <Page title={c.name} onRefresh={() => void canary.refetch()} refreshing={canary.isFetching}>
      {crumbs(c.name)}
      <TabList className={s.tabs} selectedValue={tab} onTabSelect={(_, d) => setTab(d.value as 'spec' | 'jobHistory')} aria-label="Health check">
        <Tab value="spec">Spec</Tab>
        <Tab value="jobHistory">Job History</Tab>
      </TabList>
      {tab === 'spec' ? (
        // keyed by canary: another canary (or a reload) starts the editor afresh
        <CanaryEditor
          key={`${c.id}:${edition}`}
          canary={c}
          canWrite={canWrite}
          listHref={listHref}
          canaryHref={canaryHref}
          onReload={() => void canary.refetch().then(() => setEdition((n) => n + 1))}
        />
      ) : (
        <JobHistoryTable canaryId={c.id} />
      )}
    </Page>
  );
}
