import { lazy, Suspense, useCallback, useDeferredValue, useMemo, useRef, useState } from 'react';
import { makeStyles, Spinner, Tab, TabList, tokens } from '@fluentui/react-components';
import { ErrorCircle24Regular, Organization24Regular } from '@fluentui/react-icons';
import type { TopologyComponent } from '@contracts/topology';
import { EmptyState } from '../../../components/empty-state';
import { Page } from '../../../components/page';
import { errorMessage } from '../../../lib/api-client';
import { useSearchPatch, useUrlState } from '../../../lib/url-state';
import { TopologySidebar } from '../sidebar';
import { useAgents, useTopology } from '../api';
import {
  clampWidth, componentHref, loadPrefs, savePrefs, sortChoices, topologyQuery, TOPOLOGY_URL_DEFAULTS,
  type TopologyFilters, type TopologyPrefs, type TopologySort,
} from '../model';
import type { CardAbilities } from './card-menu';
import { CardGrid, CardSkeleton } from './card-grid';
import { TopologyBreadcrumb } from './topology-breadcrumb';
import { TopologyFilterBar } from './topology-filters';
import { AgentNamesContext, type AgentNames } from '../../health/agent-names';

// @xyflow/react and dagre load only when the graph is asked for
const TopologyGraph = lazy(() => import('../graph').then((m) => ({ default: m.TopologyGraph })));

const useStyles = makeStyles({
  root: { display: 'flex', gap: tokens.spacingHorizontalL, height: '100%', minHeight: 0 },
  main: { flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column', minHeight: 0 },
  scroll: { flex: 1, minHeight: 0, overflowY: 'auto', paddingBottom: tokens.spacingVerticalL },
  side: {
    width: '420px', flexShrink: 0, overflowY: 'auto', borderLeft: `1px solid ${tokens.colorNeutralStroke2}`,
    paddingLeft: tokens.spacingHorizontalL,
  },
  head: { marginBottom: tokens.spacingVerticalS, display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: tokens.spacingHorizontalM },
  graph: { height: '100%', minHeight: '480px' },
});

/** Why a zoomed answer cannot be shown, or the cards: the component's children (or itself when it has none). */
export function cardsOf(components: TopologyComponent[], id: string | undefined, flat: boolean):
  { cards: TopologyComponent[]; root?: TopologyComponent; error?: string } {
  if (!id || flat) return { cards: components };
  if (components.length > 1) return { cards: [], error: 'Response has multiple components for the id.' };
  const root = components[0];
  if (!root) return { cards: [] };
  return { cards: root.components?.length ? root.components : [root], root };
}

/** The query kept when a card leads on: the filters, not the health filter or the way here (reference). */
function zoomQuery(params: URLSearchParams): Record<string, string> {
  const keep: Record<string, string> = {};
  for (const [k, v] of params) if (k !== 'refererId' && k !== 'status') keep[k] = v;
  return keep;
}

/** /topology and /topology/{id}: breadcrumb, filters, the cards, and the sidebar of the zoomed or clicked one. */
export function TopologyPage({ id, can, incidentsEnabled }: { id?: string; can: CardAbilities; incidentsEnabled: boolean }) {
  const s = useStyles();
  const [filters, setFilters] = useUrlState(TOPOLOGY_URL_DEFAULTS);
  const [params] = useSearchPatch();
  const [prefs, setPrefs] = useState<TopologyPrefs>(() => loadPrefs());
  const updatePrefs = useCallback((p: Partial<TopologyPrefs>) => {
    setPrefs((prev) => {
      const next = { ...prev, ...p };
      savePrefs(next);
      return next;
    });
  }, []);
  // the slider stays responsive while the grid re-flows behind it
  const width = useDeferredValue(prefs.width);
  const query = useMemo(() => topologyQuery(filters, prefs.sort, id), [filters, prefs.sort, id]);
  const topology = useTopology(query);
  const agents = useAgents();
  const [selectedId, setSelectedId] = useState<string>();
  const scrollRef = useRef<HTMLDivElement>(null);

  const { cards, root, error } = useMemo(
    () => cardsOf(topology.data?.components ?? [], id, !!filters.type),
    [topology.data, id, filters.type],
  );
  const keep = useMemo(() => zoomQuery(params), [params]);
  const zoomHref = useCallback(
    (c: TopologyComponent) => {
      // reached through a selector (not a child by parent_id): the breadcrumb goes back through this component
      const parentByPath = typeof c.path === 'string' ? c.path.split('.').pop() : undefined;
      const referer = id && parentByPath !== id && c.id !== id ? id : undefined;
      return componentHref(c.id, { ...keep, refererId: referer });
    },
    [keep, id],
  );
  const options = useMemo(() => ({
    healthStatuses: topology.data?.healthStatuses ?? [],
    types: topology.data?.types ?? [],
    teams: topology.data?.teams ?? [],
    tags: topology.data?.tags ?? {},
    agents: agents.data ?? [],
    sorts: sortChoices(cards),
  }), [topology.data, agents.data, cards]);
  const onChange = useCallback((p: Partial<TopologyFilters>) => setFilters(p), [setFilters]);
  const onSort = useCallback((sort: TopologySort) => updatePrefs({ sort }), [updatePrefs]);
  const onWidth = useCallback((w: number) => updatePrefs({ width: clampWidth(w) }), [updatePrefs]);
  const onSelect = useCallback((cid: string) => setSelectedId((prev) => (prev === cid ? undefined : cid)), []);

  const selected = (selectedId && findById(cards, selectedId)) || root;
  // the agent badge of pushed components names the agent from the list the agent filter already loads
  const agentNames: AgentNames = useMemo(() => new Map((agents.data ?? []).map((a) => [a.id, a.name])), [agents.data]);
  const cardProps = useMemo(() => ({ can, onSelect }), [can, onSelect]);

  return (
    <Page title={root ? root.text || root.name : 'Topology'} onRefresh={() => void topology.refetch()} refreshing={topology.isFetching}>
      <div className={s.root}>
        <div className={s.main}>
          <div className={s.head}>
            <TopologyBreadcrumb component={root} refererId={filters.refererId || undefined} search={keep} />
            <TabList size="small" selectedValue={filters.view === 'graph' ? 'graph' : 'cards'} onTabSelect={(_, d) => setFilters({ view: d.value === 'graph' ? 'graph' : '' })} aria-label="View">
              <Tab value="cards">Cards</Tab>
              <Tab value="graph">Graph</Tab>
            </TabList>
          </div>
          <TopologyFilterBar
            value={filters}
            onChange={onChange}
            sort={prefs.sort}
            onSort={onSort}
            width={prefs.width}
            onWidth={onWidth}
            options={options}
          />
          <div ref={scrollRef} className={s.scroll}>
            {topology.isError ? (
              <EmptyState icon={<ErrorCircle24Regular />} title="The topology could not be loaded" description={errorMessage(topology.error)} role="alert" />
            ) : error ? (
              <EmptyState icon={<ErrorCircle24Regular />} title={error} role="alert" />
            ) : topology.isLoading ? (
              <CardSkeleton width={width} />
            ) : !cards.length ? (
              <EmptyState icon={<Organization24Regular />} title="There are no components matching this criteria" />
            ) : filters.view === 'graph' ? (
              <div className={s.graph}>
                <Suspense fallback={<Spinner label="Loading the graph…" />}>
                  <TopologyGraph components={cards} onSelect={setSelectedId} />
                </Suspense>
              </div>
            ) : (
              <AgentNamesContext.Provider value={agentNames}>
                <CardGrid components={cards} width={width} scrollRef={scrollRef} zoomHref={zoomHref} selectedId={selected?.id} card={cardProps} />
              </AgentNamesContext.Provider>
            )}
          </div>
        </div>
        {selected && (
          <div className={s.side}>
            <TopologySidebar component={selected} canWrite={can.write} incidentsEnabled={incidentsEnabled} />
          </div>
        )}
      </div>
    </Page>
  );
}

function findById(list: TopologyComponent[], id: string): TopologyComponent | undefined {
  for (const c of list) {
    if (c.id === id) return c;
    const inner = c.components && findById(c.components, id);
    if (inner) return inner;
  }
  return undefined;
}
