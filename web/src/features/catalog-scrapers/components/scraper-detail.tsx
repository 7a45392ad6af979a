import { useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import {
  Breadcrumb,
  BreadcrumbButton,
  BreadcrumbDivider,
  BreadcrumbItem,
  Link as FluentLink,
  makeStyles,
  MessageBar,
  MessageBarBody,
  MessageBarTitle,
  Spinner,
  Tab,
  TabList,
  tokens,
} from '@fluentui/react-components';
import { DocumentSearch24Regular, ErrorCircle24Regular } from '@fluentui/react-icons';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { useRunScraper, useScraper, type ScraperJob, type ScraperRow } from '../api';
import { onAgent, scraperSource } from '../source';
import { RunNowButton, RunProgress } from './run-now';
import { ScraperEditor } from './scraper-editor';
import { ScraperJobs } from './scraper-jobs';

const useStyles = makeStyles({
  tabs: { margin: `${tokens.spacingVerticalS} 0 ${tokens.spacingVerticalM}` },
  stack: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS, marginTop: tokens.spacingVerticalS },
});

export interface ScraperDetailProps {
  /** 'new' for a new scraper. */
  id: string;
  /** Write on config_scrapers with the scraper feature on: Save, Delete, Run now. */
  canWrite: boolean;
  currentUserId: string;
  listHref: string;
  scraperHref: (id: string) => string;
  /** Where an update or a delete ends (spec 001 §4: Integrations). */
  afterWrite: string;
  renderJobDetails: (job: ScraperJob | null, onClose: () => void) => ReactNode;
}

function Crumbs({ listHref, name }: { listHref: string; name?: string }) {
  return (
    <Breadcrumb aria-label="Breadcrumb" size="medium">
      <BreadcrumbItem>
        <Link href="/catalog" asChild>
          <BreadcrumbButton as="a" href="/catalog">Catalog</BreadcrumbButton>
        </Link>
      </BreadcrumbItem>
      <BreadcrumbDivider />
      <BreadcrumbItem>
        <Link href={listHref} asChild>
          <BreadcrumbButton as="a" href={listHref}>Scrapers</BreadcrumbButton>
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

/** Where the scraper comes from (spec 001 §4 source link rules); nothing for one made here. */
function SourceBanner({ row }: { row: ScraperRow }) {
  const src = scraperSource(row);
  if (src.label === 'UI') return null;
  return (
    <MessageBar intent="info">
      <MessageBarBody>
        <MessageBarTitle>
          {src.href ? (
            <Link href={src.href} asChild>
              <FluentLink href={src.href}>{src.label}</FluentLink>
            </Link>
          ) : (
            src.label
          )}
        </MessageBarTitle>
        {src.customResource
          ? 'This scraper is a ScrapeConfig custom resource: saving here updates it in the cluster (one managed by GitOps is changed in its repository).'
          : 'This scraper is managed by its source; edit it there.'}
      </MessageBarBody>
    </MessageBar>
  );
}

/** /catalog/scrapers/{id} and /new: tabs Spec and Job History (spec 001 §2), Run now for writers. */
export function ScraperDetail({ id, canWrite, currentUserId, listHref, scraperHref, afterWrite, renderJobDetails }: ScraperDetailProps) {
  const s = useStyles();
  const [, navigate] = useLocation();
  const isNew = id === 'new';
  const scraper = useScraper(isNew ? undefined : id);
  const run = useRunScraper(id);
  const [tab, setTab] = useState<'spec' | 'jobHistory'>('spec');
  const editorProps = {
    currentUserId,
    // a new scraper opens on its page (Run now is there); spec 001 §4: an update or a delete ends on Integrations
    onSaved: (saved: string, created: boolean) => navigate(created ? scraperHref(saved) : afterWrite, { replace: created }),
    onDeleted: () => navigate(afterWrite, { replace: true }),
    onBack: () => navigate(listHref),
  };

  if (isNew) {
    return (
      <Page title="Add Scraper">
        <Crumbs listHref={listHref} name="New" />
        <div className={s.tabs} />
        <ScraperEditor readOnly={!canWrite} {...editorProps} />
      </Page>
    );
  }
  if (scraper.isLoading) {
    return (
      <Page title="Catalog Scraper">
        <Spinner label="Loading…" />
      </Page>
    );
  }
  const r = scraper.data;
  if (!r) {
    return (
      <Page title="Catalog Scraper">
        <Crumbs listHref={listHref} />
        <EmptyState
          icon={scraper.error ? <ErrorCircle24Regular /> : <DocumentSearch24Regular />}
          title={scraper.error ? 'The scraper could not be loaded' : 'No resources found'}
          description={scraper.error ? errorMessage(scraper.error) : 'There is no scraper with this id; it may have been deleted.'}
          role={scraper.error ? 'alert' : 'status'}
        />
      </Page>
    );
  }
  const src = scraperSource(r);
  // an agent's scraper runs on the agent
  const canRun = canWrite && !onAgent(r);
  return (
    <Page
      title={r.name ?? r.id}
      onRefresh={() => void scraper.refetch()}
      refreshing={scraper.isFetching}
      extra={canRun && <RunNowButton run={run} />}
    >
      <Crumbs listHref={listHref} name={r.name ?? r.id} />
      <div className={s.stack}>
        <SourceBanner row={r} />
        <RunProgress run={run} />
      </div>
      <TabList className={s.tabs} selectedValue={tab} onTabSelect={(_, d) => setTab(d.value as 'spec' | 'jobHistory')} aria-label="Catalog Scraper">
        <Tab value="spec">Spec</Tab>
        <Tab value="jobHistory">Job History</Tab>
      </TabList>
      {tab === 'spec' ? (
        // keyed by the stored row: a live change elsewhere (or Update) starts the editor on the row as stored
        <ScraperEditor key={`${r.id}:${String(r.updated_at)}`} row={r} readOnly={!canWrite || !src.editable} {...editorProps} />
      ) : (
        <ScraperJobs scraperId={r.id} renderDetails={renderJobDetails} />
      )}
    </Page>
  );
}
