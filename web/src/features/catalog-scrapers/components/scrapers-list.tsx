import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { Button } from '@fluentui/react-components';
import { Add20Regular, ErrorCircle24Regular } from '@fluentui/react-icons';
import { DataTable } from '../../../components/data-table/data-table';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { useResources, type ResourceRow } from '../../settings-resources/api';
import { SCRAPERS } from '../api';
import { useScraperColumns } from './scraper-columns';

const NONE: ResourceRow[] = [];

export interface ScrapersListProps {
  /** Write on config_scrapers with the scraper feature on: Add. */
  canWrite: boolean;
  /** The catalog's tab bar, above the table. */
  tabs?: ReactNode;
  scraperHref: (id: string) => string;
}

/** /catalog/scrapers: every live scraper with its types, source, schedule and last run; a row opens it. */
export function ScrapersList({ canWrite, tabs, scraperHref }: ScrapersListProps) {
  const rows = useResources(SCRAPERS);
  const columns = useScraperColumns();
  const [, navigate] = useLocation();
  const add = scraperHref('new');
  return (
    <Page
      title="Catalog Scrapers"
      onRefresh={() => void rows.refetch()}
      refreshing={rows.isFetching}
      extra={
        canWrite && (
          <Link href={add} asChild>
            <Button as="a" href={add} appearance="primary" icon={<Add20Regular />}>
              Add Scraper
            </Button>
          </Link>
        )
      }
    >
      {tabs}
      {rows.error && !rows.data ? (
        <EmptyState
          icon={<ErrorCircle24Regular />}
          title="Scrapers could not be loaded"
          description={errorMessage(rows.error)}
          role="alert"
          actions={<Button onClick={() => void rows.refetch()}>Try again</Button>}
        />
      ) : (
        <DataTable
          label="Catalog Scrapers"
          columns={columns}
          data={rows.data ?? NONE}
          getRowId={(r) => r.id}
          loading={rows.isLoading}
          onRowClick={(r) => navigate(scraperHref(r.id))}
          defaultSort={{ id: 'name' }}
          emptyMessage={canWrite ? 'No scrapers yet: add one to fill the catalog' : 'No scrapers yet'}
        />
      )}
    </Page>
  );
}
