import type { ReactNode } from 'react';
import { useLocation } from 'wouter';
import { makeStyles, tokens } from '@fluentui/react-components';
import { useResource } from '../../settings-resources/api';
import { DetailFrame, type DetailTab } from '../../settings-resources/components/detail-frame';
import { SourceBanner } from '../../settings-resources/components/source-banner';
import { editableHere, sourceLinkOf } from '../../settings-resources/source-link';
import { SCRAPERS, useRunScraper, type ScraperJob } from '../api';
import { RunNowButton, RunProgress } from './run-now';
import { ScraperEditor } from './scraper-editor';
import { ScraperJobs } from './scraper-jobs';

const useStyles = makeStyles({
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

/**
 * /catalog/scrapers/{id} and /new: the settings detail frame under Catalog › Scrapers, tabs Spec and Job History
 * (spec 001 §2), the source banner, and Run now for writers.
 */
export function ScraperDetail({ id, canWrite, currentUserId, listHref, scraperHref, afterWrite, renderJobDetails }: ScraperDetailProps) {
  const s = useStyles();
  const [, navigate] = useLocation();
  const isNew = id === 'new';
  const scraper = useResource(SCRAPERS, isNew ? undefined : id);
  const run = useRunScraper(id);
  const parents = [{ label: 'Catalog', href: '/catalog' }, { label: 'Scrapers', href: listHref }];
  const editorProps = {
    currentUserId,
    // a new scraper opens on its page (Run now is there); spec 001 §4: an update or a delete ends on Integrations
    onSaved: (saved: string, created: boolean) => navigate(created ? scraperHref(saved) : afterWrite, { replace: created }),
    onDeleted: () => navigate(afterWrite, { replace: true }),
    onBack: () => navigate(listHref),
  };

  if (isNew) {
    const spec = <ScraperEditor readOnly={!canWrite} {...editorProps} />;
    return <DetailFrame descriptor={SCRAPERS} state="new" parents={parents} newTitle="Add Scraper" tabs={[{ value: 'spec', label: 'Spec', content: spec }]} />;
  }
  const r = scraper.data;
  const link = r ? sourceLinkOf(r) : null;
  const tabs: DetailTab[] = r
    ? [
        {
          value: 'spec',
          label: 'Spec',
          // keyed by the stored row: a live change elsewhere (or Update) starts the editor on the row as stored
          content: <ScraperEditor key={`${r.id}:${String(r.updated_at)}`} row={r} readOnly={!canWrite || !editableHere(link!)} {...editorProps} />,
        },
        { value: 'jobHistory', label: 'Job History', content: <ScraperJobs scraperId={r.id} renderDetails={renderJobDetails} /> },
      ]
    : [];
  return (
    <DetailFrame
      descriptor={SCRAPERS}
      state={{ loading: scraper.isLoading, error: scraper.error, name: r ? (r.name ?? r.id) : null }}
      parents={parents}
      onRefresh={() => void scraper.refetch()}
      refreshing={scraper.isFetching}
      // an agent's scraper runs on the agent
      extra={canWrite && link?.kind !== 'agent' && <RunNowButton run={run} />}
      header={
        link && (
          <div className={s.stack}>
            <SourceBanner link={link} singular="scraper" />
            <RunProgress run={run} />
          </div>
        )
      }
      tabs={tabs}
    />
  );
}
