import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { Breadcrumb, BreadcrumbButton, BreadcrumbDivider, BreadcrumbItem } from '@fluentui/react-components';
import { Page } from '../../../components/page';
import { useUrlState } from '../../../lib/url-state';
import { breadcrumbConfigType } from '../model';
import { ChangesView } from './changes-view';

/** Catalog › Changes, and › the config type when the filter keeps exactly one (linking to /catalog?configType=). */
function ChangesBreadcrumb() {
  const [f] = useUrlState({ configTypes: '', configType: '' });
  const type = breadcrumbConfigType(f);
  const typeHref = type ? `/catalog?configType=${encodeURIComponent(type)}` : '';
  return (
    <Breadcrumb aria-label="Breadcrumb" size="medium">
      <BreadcrumbItem>
        <Link href="/catalog" asChild>
          <BreadcrumbButton as="a" href="/catalog">Catalog</BreadcrumbButton>
        </Link>
      </BreadcrumbItem>
      <BreadcrumbDivider />
      <BreadcrumbItem>
        <BreadcrumbButton current={!type}>Changes</BreadcrumbButton>
      </BreadcrumbItem>
      {type && (
        <>
          <BreadcrumbDivider />
          <BreadcrumbItem>
            <Link href={typeHref} asChild>
              <BreadcrumbButton as="a" href={typeHref}>{type}</BreadcrumbButton>
            </Link>
          </BreadcrumbItem>
        </>
      )}
    </Breadcrumb>
  );
}

/** /catalog/changes: every change in the catalog, under the catalog's tab bar (given by the route). */
export function CatalogChanges({ tabs }: { tabs: ReactNode }) {
  return (
    <Page title="Catalog Changes">
      <ChangesBreadcrumb />
      {tabs}
      <ChangesView />
    </Page>
  );
}
