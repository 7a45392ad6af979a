import { Fragment, useState, type ReactNode } from 'react';
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
import { DocumentSearch24Regular, ErrorCircle24Regular } from '@fluentui/react-icons';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { listHref, type ResourceDescriptor } from '../descriptors';

const useStyles = makeStyles({
  tabs: { margin: `${tokens.spacingVerticalS} 0 ${tokens.spacingVerticalM}` },
});

/** A detail tab (spec 001 §2: spec, manageTeam, jobHistory). */
export interface DetailTab {
  value: 'spec' | 'manageTeam' | 'jobHistory';
  label: string;
  content: ReactNode;
}

export interface DetailFrameProps {
  descriptor: ResourceDescriptor;
  /** Loading, missing (null) or the row's name; absent for a new one. */
  state: { loading: boolean; error: unknown; name: string | null | undefined } | 'new';
  tabs: DetailTab[];
  defaultTab?: DetailTab['value'];
  /** Above the tabs: where the row comes from, a header. */
  header?: ReactNode;
  extra?: ReactNode;
  onRefresh?: () => void;
  refreshing?: boolean;
  /** The crumbs before the row's name, for a table with a page elsewhere (scrapers: Catalog › Scrapers). */
  parents?: readonly { label: string; href: string }[];
  /** A new one's page title; `Add {singular}` unless set. */
  newTitle?: string;
}

/** The one frame of every /settings/{table}/{id} page: breadcrumb, loading, 'No resources found', tabs. */
export function DetailFrame({ descriptor: d, state, tabs, defaultTab = 'spec', header, extra, onRefresh, refreshing, parents, newTitle }: DetailFrameProps) {
  const s = useStyles();
  const [tab, setTab] = useState<string>(defaultTab);
  const list = listHref(d);
  const crumbs = (name?: string) => (
    <Breadcrumb aria-label="Breadcrumb" size="medium">
      {parents ? (
        parents.map((p, i) => (
          <Fragment key={p.href}>
            {i > 0 && <BreadcrumbDivider />}
            <BreadcrumbItem>
              <Link href={p.href} asChild>
                <BreadcrumbButton as="a" href={p.href}>{p.label}</BreadcrumbButton>
              </Link>
            </BreadcrumbItem>
          </Fragment>
        ))
      ) : (
        <>
          {/* there is no Settings index page: the sidebar's Settings group is the way up */}
          <BreadcrumbItem>Settings</BreadcrumbItem>
          <BreadcrumbDivider />
          <BreadcrumbItem>
            <Link href={list} asChild>
              <BreadcrumbButton as="a" href={list}>{d.title}</BreadcrumbButton>
            </Link>
          </BreadcrumbItem>
        </>
      )}
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

  if (state === 'new') {
    return (
      <Page title={newTitle ?? `Add ${d.singular}`}>
        {crumbs('New')}
        <div className={s.tabs} />
        {tabs.find((t) => t.value === 'spec')?.content}
      </Page>
    );
  }
  if (state.loading) {
    return (
      <Page title={d.singular}>
        <Spinner label="Loading…" />
      </Page>
    );
  }
  if (!state.name) {
    return (
      <Page title={d.singular}>
        {crumbs()}
        <EmptyState
          icon={state.error ? <ErrorCircle24Regular /> : <DocumentSearch24Regular />}
          title={state.error ? `The ${d.singular.toLowerCase()} could not be loaded` : 'No resources found'}
          description={state.error ? errorMessage(state.error) : `There is no ${d.singular.toLowerCase()} with this id; it may have been deleted.`}
          role={state.error ? 'alert' : 'status'}
        />
      </Page>
    );
  }
  const current = tabs.find((t) => t.value === tab) ?? tabs[0];
  return (
    <Page title={state.name} onRefresh={onRefresh} refreshing={refreshing} extra={extra}>
      {crumbs(state.name)}
      {header}
      <TabList className={s.tabs} selectedValue={current.value} onTabSelect={(_, v) => setTab(v.value as string)} aria-label={d.singular}>
        {tabs.map((t) => (
          <Tab key={t.value} value={t.value}>{t.label}</Tab>
        ))}
      </TabList>
      {current.content}
    </Page>
  );
}
