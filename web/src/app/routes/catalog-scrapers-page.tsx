import { CatalogTabs } from '../../features/catalog/catalog-tabs';
import { ScraperDetail } from '../../features/catalog-scrapers/components/scraper-detail';
import { ScrapersList } from '../../features/catalog-scrapers/components/scrapers-list';
// a run's details dialog is the Job History page's own (Errors, Scrape Summary, Reconcile Summary)
import { JobDetailsDialog } from '../../features/jobs/components/job-details-dialog';
import { pathTo, paths } from '../paths';
import { UnauthorizedPage } from '../route-preload';
import { useSession } from '../session-context';

const scraperHref = (id: string) => pathTo(paths.catalogScraper, { id });

/** Scraper writes need write on config_scrapers and the settings.config_scraper feature (the server's two checks). */
function useCanWrite(): boolean {
  const session = useSession();
  return session.can('config_scrapers', 'write') && session.enabled('settings.config_scraper');
}

/** /catalog/scrapers */
export function CatalogScrapersPage() {
  return <ScrapersList canWrite={useCanWrite()} tabs={<CatalogTabs selected="scrapers" />} scraperHref={scraperHref} />;
}

/** /catalog/scrapers/{id} and /catalog/scrapers/new (write). */
export function CatalogScraperPage({ params }: { params: Record<string, string | undefined> }) {
  const session = useSession();
  const canWrite = useCanWrite();
  const id = params.id ?? 'new';
  if (id === 'new' && !canWrite) return <UnauthorizedPage title="Add Scraper" />;
  // spec 001 §4: after a scraper update or delete, Integrations (when this user may open it)
  const integrations = session.can('integrations', 'read') && session.enabled('settings.integrations');
  return (
    <ScraperDetail
      key={id}
      id={id}
      canWrite={canWrite}
      currentUserId={session.user.id}
      listHref={paths.catalogScrapers}
      scraperHref={scraperHref}
      afterWrite={integrations ? paths.settingsIntegrations : paths.catalogScrapers}
      renderJobDetails={(job, onClose) => <JobDetailsDialog job={job} onClose={onClose} />}
    />
  );
}
