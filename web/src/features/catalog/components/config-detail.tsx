import type { ReactNode } from 'react';
import { useLocation } from 'wouter';
import {
  Breadcrumb, BreadcrumbButton, BreadcrumbDivider, BreadcrumbItem, CounterBadge, makeStyles, Spinner, Tab, TabList, tokens,
} from '@fluentui/react-components';
import { DocumentSearch24Regular, ErrorCircle24Regular } from '@fluentui/react-icons';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { useConfigDetail, type ConfigDetail, type ConfigSummaryCounts } from '../api';
import { ChecksTab } from './checks-tab';
import { ConfigSidebar } from './config-sidebar';
import { ConfigTab, type SelectedConfigLines } from './config-tab';
import { PlaybooksTab } from './playbooks-tab';
import { AgentBadge } from '../../health/components/check-name';
import { isLocalAgent } from '../../health/filters';

/** The item's tabs (spec 001 §2), each its own route under /catalog/{id}, with the summary count it shows. */
export const CONFIG_TABS = [
  { value: 'config', label: 'Config', path: '', count: null },
  { value: 'changes', label: 'Changes', path: '/changes', count: 'changes' },
  { value: 'insights', label: 'Insights', path: '/insights', count: 'analysis' },
  { value: 'relationships', label: 'Relationships', path: '/relationships', count: 'relationships' },
  { value: 'playbooks', label: 'Playbooks', path: '/playbooks', count: 'playbook_runs' },
  { value: 'checks', label: 'Checks', path: '/checks', count: 'checks' },
] as const satisfies readonly { value: string; label: string; path: string; count: keyof ConfigSummaryCounts | null }[];

export type ConfigTabName = (typeof CONFIG_TABS)[number]['value'];

const useStyles = makeStyles({
  tabs: { margin: `${tokens.spacingVerticalS} 0 ${tokens.spacingVerticalM}` },
  badge: { marginInlineStart: tokens.spacingHorizontalXS },
  grid: {
    display: 'grid',
    gridTemplateColumns: 'minmax(0, 1fr) minmax(260px, 340px)',
    gap: tokens.spacingHorizontalL,
    alignItems: 'start',
    '@media (max-width: 900px)': { gridTemplateColumns: 'minmax(0, 1fr)' },
  },
  body: { minWidth: 0 },
});

export interface ConfigDetailViewProps {
  configId: string;
  tab: ConfigTabName;
  /** The Changes, Insights and Relationships tabs' bodies (their own feature's components). */
  renderTab?: (tab: 'changes' | 'insights' | 'relationships', configId: string) => ReactNode;
  renderAttach?: (selection: SelectedConfigLines) => ReactNode;
}

function Crumbs({ item }: { item: ConfigDetail | null }) {
  const [, navigate] = useLocation();
  const go = (href: string) => (e: { preventDefault(): void }) => {
    e.preventDefault();
    navigate(href);
  };
  const typeHref = item?.type ? `/catalog?type=${encodeURIComponent(item.type)}` : '/catalog';
  return (
    <Breadcrumb aria-label="Breadcrumb">
      <BreadcrumbItem>
        <BreadcrumbButton as="a" href="/catalog" onClick={go('/catalog')}>Catalog</BreadcrumbButton>
      </BreadcrumbItem>
      {item?.type && (
        <>
          <BreadcrumbDivider />
          <BreadcrumbItem>
            <BreadcrumbButton as="a" href={typeHref} onClick={go(typeHref)}>{item.type}</BreadcrumbButton>
          </BreadcrumbItem>
        </>
      )}
      {item && (
        <>
          <BreadcrumbDivider />
          <BreadcrumbItem>
            <BreadcrumbButton current>{item.name ?? item.id}</BreadcrumbButton>
          </BreadcrumbItem>
          {!isLocalAgent(item.agent_id) && (
            <BreadcrumbItem>
              <AgentBadge agentId={item.agent_id} name={item.agent_name} />
            </BreadcrumbItem>
          )}
        </>
      )}
    </Breadcrumb>
  );
}

/** /catalog/{id} and its tabs: breadcrumb, tabs with count badges, the tab's body, the details sidebar. */
export function ConfigDetailView({ configId, tab, renderTab, renderAttach }: ConfigDetailViewProps) {
  const s = useStyles();
  const [, navigate] = useLocation();
  const detail = useConfigDetail(configId);
  const item = detail.data ?? null;
  const base = `/catalog/${encodeURIComponent(configId)}`;

  if (detail.isLoading) {
    return (
      <Page title="Catalog Item">
        <Spinner label="Loading…" />
      </Page>
    );
  }
  if (!item) {
    return (
      <Page title="Catalog Item">
        <Crumbs item={null} />
        <EmptyState
          icon={detail.isError ? <ErrorCircle24Regular /> : <DocumentSearch24Regular />}
          title={detail.isError ? 'The item could not be loaded' : 'Details not found'}
          description={detail.isError ? errorMessage(detail.error) : 'There is no catalog item with this id; it may have been removed.'}
          role={detail.isError ? 'alert' : 'status'}
        />
      </Page>
    );
  }

  let body: ReactNode;
  if (tab === 'config') body = <ConfigTab item={item} renderAttach={renderAttach} />;
  else if (tab === 'playbooks') body = <PlaybooksTab configId={configId} />;
  else if (tab === 'checks') body = <ChecksTab configId={configId} />;
  else body = renderTab?.(tab, configId) ?? null;

  return (
    <Page title={item.name ?? item.id} onRefresh={() => void detail.refetch()} refreshing={detail.isFetching}>
      <Crumbs item={item} />
      <TabList
        className={s.tabs}
        selectedValue={tab}
        aria-label="Catalog item"
        onTabSelect={(_, d) => {
          const t = CONFIG_TABS.find((x) => x.value === d.value);
          if (t && t.value !== tab) navigate(base + t.path);
        }}
      >
        {CONFIG_TABS.map((t) => {
          const n = t.count ? (item.summary?.[t.count] ?? 0) : null;
          return (
            <Tab key={t.value} value={t.value}>
              {t.label}
              {n !== null && (
                <CounterBadge className={s.badge} size="small" appearance="ghost" color="informative" count={n} showZero aria-label={`${n} ${t.label.toLowerCase()}`} />
              )}
            </Tab>
          );
        })}
      </TabList>
      <div className={s.grid}>
        <div className={s.body}>{body}</div>
        <ConfigSidebar item={item} />
      </div>
    </Page>
  );
}
