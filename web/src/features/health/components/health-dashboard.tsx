import { lazy, Suspense, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { Link as RouterLink } from 'wouter';
import {
  Button,
  Dropdown,
  makeStyles,
  Option,
  SearchBox,
  Spinner,
  Tab,
  TabList,
  tokens,
  ToggleButton,
  Tooltip,
} from '@fluentui/react-components';
import { CalendarLtr20Regular, ChevronDown16Regular, ErrorCircle24Regular, Grid20Regular, HeartPulse24Regular, TableSimple20Regular } from '@fluentui/react-icons';
import type { CheckSummary } from '@contracts/health';
import { Page } from '../../../components/page';
import { LabeledControl } from '../../../components/labeled-control';
import { EmptyState } from '../../../components/empty-state';
import { RefreshRateSelector, useRefreshRate } from '../../../components/refresh-rate/refresh-rate-selector';
import { errorMessage } from '../../../lib/api-client';
import { mappedRange, rangeMinutes, timeRangeLabel } from '../../../lib/time-range';
import { useUrlState } from '../../../lib/url-state';
import { useCheckSummary } from '../api';
import { AgentNamesContext, useAgentNames } from '../agent-names';
import {
  ALL_TAB,
  filterChecks,
  groupByOptions,
  HEALTH_DEFAULTS,
  inTab,
  isLocalAgent,
  labelFilterDefs,
  parseLabelSelection,
  searchIndex,
  serializeLabelSelection,
  tabByOptions,
  tabsOf,
  type LabelSelection,
} from '../filters';
import { CELL_TYPE_OPTIONS, parsePivotParams, PIVOT_DEFAULTS, PIVOT_LABELS, pivotByOptions, pivotOptionValue, pivotPatch } from '../pivot-params';
import { defaultRangeForLastRun, useHealthTimeRange, windowOf } from '../time-window';
import { HealthFilters } from './health-filters';
import { CheckTable } from './check-table';
import type { CheckDrawerProps } from './check-drawer';

// The card layout (Fluent Card) and the drawer load when first shown: the default layout is the table.
const CheckCards = lazy(() => import('./check-cards').then((m) => ({ default: m.CheckCards })));
// The time-range picker's popover (calendars, date pickers, preset tabs: about 25 kB gzip) loads right after the
// page; meanwhile its trigger shows the same label.
const TimeRangePicker = lazy(() =>
  import('../../../components/time-range/time-range-picker').then((m) => ({ default: m.TimeRangePicker })),
);
// The pivot view (a choice away from the default table) loads when the Pivot By list first opens. Once loaded it
// renders directly: a lazy component suspends on its first render even when its chunk is there, and React holds a
// revealed Suspense boundary back for 300 ms (the first switch took 340 ms at 10,000 checks, later ones 50 ms).
let loadedPivot: typeof import('./check-pivot') | undefined;
const loadCheckPivot = () => import('./check-pivot').then((m) => (loadedPivot = m));
const LazyCheckPivot = lazy(() => loadCheckPivot().then((m) => ({ default: m.CheckPivot })));
const CheckDrawer = lazy(() => import('./check-drawer').then((m) => ({ default: m.CheckDrawer })));

const useStyles = makeStyles({
  layout: { display: 'grid', gridTemplateColumns: '220px minmax(0, 1fr)', gap: tokens.spacingHorizontalXL, alignItems: 'start' },
  side: { position: 'sticky', top: 0 },
  main: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, minWidth: 0 },
  toolbar: { display: 'flex', flexWrap: 'wrap', alignItems: 'flex-end', gap: tokens.spacingHorizontalM },
  // a basis that leaves room for Group By, Tab By, Pivot By and the layout toggle on one line at 1366 px
  search: { flex: '1 1 240px', maxWidth: '420px' },
  select: { minWidth: '150px' },
  cellSelect: { minWidth: '110px' },
  // Pivot By and its Cell choice wrap together, so the Cell never sits alone on a line
  pivotControls: { display: 'flex', alignItems: 'flex-end', gap: tokens.spacingHorizontalM },
  layoutToggle: { display: 'flex', gap: tokens.spacingHorizontalXXS, marginLeft: 'auto' },
  tabs: { borderBottom: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}` },
  header: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS },
  rangeTrigger: { fontWeight: tokens.fontWeightRegular },
});

const URL_DEFAULTS = {
  hidePassing: HEALTH_DEFAULTS.hidePassing as boolean,
  groupBy: HEALTH_DEFAULTS.groupBy as string,
  tabBy: HEALTH_DEFAULTS.tabBy as string,
  tab: ALL_TAB as string,
  layout: 'table',
  query: '',
  labels: '',
  checkId: '',
  ...PIVOT_DEFAULTS,
};

/** Spec 000 §9: search inputs debounce 400 ms. */
const SEARCH_DEBOUNCE_MS = 400;
const NO_CHECKS: CheckSummary[] = [];

export interface HealthDashboardProps {
  canRunNow: boolean;
  canEditCanaries: boolean;
  /** Extra actions in the check drawer's footer (passed through to CheckDrawer). */
  checkActions?: CheckDrawerProps['checkActions'];
}

/** /health: every check with its health, uptime and latency; filters, tabs, grouping and the drawer live in the URL. */
export function HealthDashboard({ canRunNow, canEditCanaries, checkActions }: HealthDashboardProps) {
  const s = useStyles();
  const [state, set] = useUrlState(URL_DEFAULTS);
  const [range, setRange, explicitRange] = useHealthTimeRange();
  const timeWindow = windowOf(range);
  const minutes = useMemo(() => rangeMinutes(range), [range]);
  const refresh = useRefreshRate('health.refreshRate', minutes);
  const summary = useCheckSummary(timeWindow, refresh.interval);
  const checks = summary.data ?? NO_CHECKS;
  const agentNames = useAgentNames(useMemo(() => checks.some((c) => !isLocalAgent(c.agent_id)), [checks]));

  // with no range in the URL, widen the default once so that it reaches back to the newest run (time-window.ts)
  const rangeDefaulted = useRef(false);
  useEffect(() => {
    if (explicitRange || rangeDefaulted.current || !summary.data) return;
    rangeDefaulted.current = true;
    const key = defaultRangeForLastRun(summary.data.map((c) => c.last_runtime));
    if (key) setRange(mappedRange(key), { replace: true });
  }, [explicitRange, summary.data, setRange]);

  // the search box answers each key at once; the URL (and the filtering) follow after 400 ms of quiet
  const [search, setSearch] = useState(state.query);
  useEffect(() => setSearch(state.query), [state.query]);
  useEffect(() => {
    if (search === state.query) return;
    const t = setTimeout(() => set({ query: search }), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [search, state.query, set]);

  const labels = useMemo(() => parseLabelSelection(state.labels), [state.labels]);
  const defs = useMemo(() => labelFilterDefs(checks), [checks]);
  const index = useMemo(() => searchIndex(checks), [checks]);
  const filter = useDeferredValue(useMemo(() => ({ hidePassing: state.hidePassing, labels, query: state.query }), [state.hidePassing, labels, state.query]));
  const filtered = useMemo(() => filterChecks(checks, filter, index), [checks, filter, index]);
  const tabs = useMemo(() => tabsOf(filtered, state.tabBy, agentNames), [filtered, state.tabBy, agentNames]);
  const tab = tabs.some((t) => t.name === state.tab) ? state.tab : ALL_TAB;
  const shown = useMemo(() => inTab(filtered, state.tabBy, tab, agentNames), [filtered, state.tabBy, tab, agentNames]);
  const groupOptions = useMemo(() => groupByOptions(defs), [defs]);
  const tabOptions = useMemo(() => tabByOptions(defs), [defs]);
  const pivotOptions = useMemo(() => pivotByOptions(defs), [defs]);
  // a label no loaded check carries falls back to the table; while loading, the URL's pivot is kept
  const labelKeys = useMemo(() => (summary.data ? defs.map((d) => d.key) : undefined), [summary.data, defs]);
  const pivot = useMemo(
    () => parsePivotParams({ pivotBy: state.pivotBy, pivotLabel: state.pivotLabel, pivotCellType: state.pivotCellType }, labelKeys),
    [state.pivotBy, state.pivotLabel, state.pivotCellType, labelKeys],
  );
  const pivoting = pivot.pivotBy === PIVOT_LABELS;
  const pivotValue = pivotOptionValue(pivot);

  const onLabels = useCallback((next: LabelSelection) => set({ labels: serializeLabelSelection(next) }), [set]);
  const onHidePassing = useCallback((v: boolean) => set({ hidePassing: v }), [set]);
  const open = useCallback((c: CheckSummary) => set({ checkId: c.id }, { replace: false }), [set]);
  const openCheck = state.checkId ? checks.find((c) => c.id === state.checkId) : undefined;

  // only when nothing shows (a second pass over every check otherwise runs on each render)
  const emptyMessage = useMemo(() => {
    if (!checks.length) return 'No health checks yet';
    if (shown.length || !filter.hidePassing) return 'No checks match these filters';
    return filterChecks(checks, { ...filter, hidePassing: false }, index).length
      ? 'All checks are passing. Turn off Hide Passing to see them.'
      : 'No checks match these filters';
  }, [checks, shown.length, filter, index]);

  const CheckPivot = loadedPivot?.CheckPivot ?? LazyCheckPivot;
  let body;
  if (summary.error && !summary.data) {
    body = (
      <EmptyState
        icon={<ErrorCircle24Regular />}
        title="Health checks could not be loaded"
        description={errorMessage(summary.error)}
        role="alert"
        actions={<Button onClick={() => void summary.refetch()}>Try again</Button>}
      />
    );
  } else if (summary.isSuccess && !checks.length) {
    body = (
      <EmptyState
        icon={<HeartPulse24Regular />}
        title="No health checks yet"
        description="Health checks come from canaries. Add a canary to start checking your endpoints."
        actions={canEditCanaries && (
          <RouterLink href="/settings/canaries" asChild>
            <Button appearance="primary" as="a">Add a canary</Button>
          </RouterLink>
        )}
      />
    );
  } else {
    body = (
      <>
        <div className={s.tabs}>
          <TabList
            size="small"
            selectedValue={tab}
            onTabSelect={(_, d) => set({ tab: String(d.value) })}
            aria-label={`Tabs by ${tabOptions.find((o) => o.value === state.tabBy)?.label ?? state.tabBy}`}
          >
            {tabs.map((t) => (
              <Tab key={t.name} value={t.name}>
                {t.name} ({t.count})
              </Tab>
            ))}
          </TabList>
        </div>
        {/* cards ignore the pivot: it is a table view */}
        {state.layout === 'card' ? (
          <Suspense fallback={<Spinner size="small" label="Loading…" />}>
            <CheckCards key={`${tab}|${state.query}`} checks={shown} emptyMessage={summary.isLoading ? 'Loading…' : emptyMessage} onOpen={open} />
          </Suspense>
        ) : pivoting ? (
          <Suspense fallback={<Spinner size="small" label="Loading…" />}>
            <CheckPivot checks={shown} label={pivot.pivotLabel} cellType={pivot.cellType} loading={summary.isFetching} emptyMessage={emptyMessage} onOpen={open} />
          </Suspense>
        ) : (
          <CheckTable checks={shown} groupBy={state.groupBy} loading={summary.isFetching} emptyMessage={emptyMessage} onOpen={open} />
        )}
      </>
    );
  }

  return (
    <Page
      title="Health"
      onRefresh={() => void summary.refetch()}
      refreshing={summary.isFetching}
      extra={
        <span className={s.header}>
          <Suspense
            fallback={
              <Button icon={<CalendarLtr20Regular />} iconPosition="before" aria-label={`Time range: ${timeRangeLabel(range)}`} className={s.rangeTrigger}>
                {timeRangeLabel(range)}
                <ChevronDown16Regular style={{ marginInlineStart: tokens.spacingHorizontalXS }} />
              </Button>
            }
          >
            <TimeRangePicker value={range} onChange={setRange} showFuture={false} />
          </Suspense>
          <RefreshRateSelector value={refresh.chosen} onChange={refresh.setRate} rangeMinutes={minutes} />
        </span>
      }
    >
      <div className={s.layout}>
        <aside className={s.side}>
          <HealthFilters hidePassing={state.hidePassing} onHidePassing={onHidePassing} defs={defs} labels={labels} onLabels={onLabels} />
        </aside>
        <div className={s.main}>
          <div className={s.toolbar}>
            <LabeledControl label="Search" className={s.search}>
              {(id) => (
                <SearchBox
                  id={id}
                  placeholder="Search by name, description, or endpoint"
                  value={search}
                  onChange={(_, d) => setSearch(d.value)}
                />
              )}
            </LabeledControl>
            <LabeledControl label="Group By">
              {(id) => (
                <Dropdown
                  id={id}
                  className={s.select}
                  // rows of a pivot are check names: grouping does not apply to it
                  disabled={pivoting}
                  value={groupOptions.find((o) => o.value === state.groupBy)?.label ?? state.groupBy}
                  selectedOptions={[state.groupBy]}
                  onOptionSelect={(_, d) => d.optionValue && set({ groupBy: d.optionValue })}
                >
                  {groupOptions.map((o) => (
                    <Option key={o.value} value={o.value}>{o.label}</Option>
                  ))}
                </Dropdown>
              )}
            </LabeledControl>
            <LabeledControl label="Tab By">
              {(id) => (
                <Dropdown
                  id={id}
                  className={s.select}
                  value={tabOptions.find((o) => o.value === state.tabBy)?.label ?? state.tabBy}
                  selectedOptions={[state.tabBy]}
                  onOptionSelect={(_, d) => d.optionValue && set({ tabBy: d.optionValue, tab: ALL_TAB })}
                >
                  {tabOptions.map((o) => (
                    <Option key={o.value} value={o.value}>{o.label}</Option>
                  ))}
                </Dropdown>
              )}
            </LabeledControl>
            <div className={s.pivotControls}>
              <LabeledControl label="Pivot By">
                {(id) => (
                  <Dropdown
                    id={id}
                    className={s.select}
                    value={pivotOptions.find((o) => o.value === pivotValue)?.label ?? `Label: ${pivot.pivotLabel}`}
                    selectedOptions={[pivotValue]}
                    onOpenChange={(_, d) => d.open && void loadCheckPivot()}
                    onOptionSelect={(_, d) => d.optionValue && set(pivotPatch(d.optionValue))}
                  >
                    {pivotOptions.map((o) => (
                      <Option key={o.value} value={o.value}>{o.label}</Option>
                    ))}
                  </Dropdown>
                )}
              </LabeledControl>
              {pivoting && (
                <LabeledControl label="Cell">
                  {(id) => (
                    <Dropdown
                      id={id}
                      className={s.cellSelect}
                      value={CELL_TYPE_OPTIONS.find((o) => o.value === pivot.cellType)!.label}
                      selectedOptions={[pivot.cellType]}
                      onOptionSelect={(_, d) => d.optionValue && set({ pivotCellType: d.optionValue })}
                    >
                      {CELL_TYPE_OPTIONS.map((o) => (
                        <Option key={o.value} value={o.value}>{o.label}</Option>
                      ))}
                    </Dropdown>
                  )}
                </LabeledControl>
              )}
            </div>
            <div className={s.layoutToggle} role="group" aria-label="Layout">
              <Tooltip content="Table" relationship="label">
                <ToggleButton icon={<TableSimple20Regular />} checked={state.layout !== 'card'} onClick={() => set({ layout: 'table' })} />
              </Tooltip>
              <Tooltip content="Cards" relationship="label">
                <ToggleButton icon={<Grid20Regular />} checked={state.layout === 'card'} onClick={() => set({ layout: 'card' })} />
              </Tooltip>
            </div>
          </div>
          <AgentNamesContext.Provider value={agentNames}>{body}</AgentNamesContext.Provider>
        </div>
      </div>
      {state.checkId && (
        <Suspense fallback={null}>
          <AgentNamesContext.Provider value={agentNames}>
          <CheckDrawer
            checkId={state.checkId}
            summary={openCheck}
            window={timeWindow}
            range={range}
            canRunNow={canRunNow}
            checkActions={checkActions}
            onClose={() => set({ checkId: '' })}
          />
          </AgentNamesContext.Provider>
        </Suspense>
      )}
    </Page>
  );
}
