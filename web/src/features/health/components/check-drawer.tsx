import { useMemo, useState, type ReactNode } from 'react';
import { Link as RouterLink } from 'wouter';
import {
  Badge,
  Button,
  Dropdown,
  DrawerBody,
  DrawerFooter,
  DrawerHeader,
  DrawerHeaderTitle,
  makeStyles,
  Option,
  OverlayDrawer,
  Spinner,
  Tab,
  TabList,
  Text,
  tokens,
} from '@fluentui/react-components';
import { Dismiss24Regular, Edit20Regular, ErrorCircle24Regular, Play20Regular } from '@fluentui/react-icons';
import type { CheckDetail, CheckSummary } from '@contracts/health';
import { EmptyState } from '../../../components/empty-state';
import { PlaybookRunsTable } from '../../../components/playbooks/playbook-runs-table';
import { PlaybooksMenu } from '../../../components/playbooks/playbooks-menu';
import { usePlaybookAbilities } from '../../../components/playbooks/abilities';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { LabelChips } from '../../../components/status/label-chips';
import { SeverityBadge } from '../../../components/status/status-badge';
import { Age } from '../../../components/status/age';
import { CodeViewer } from '../../../components/code/code-viewer';
import { errorMessage } from '../../../lib/api-client';
import { formatDateTime, formatDuration } from '../../../lib/format';
import { MAPPED_TIME_RANGES, type TimeRange } from '../../../lib/time-range';
import { useCheckDetail, useCheckGraph, useRunCheck, type GraphRange } from '../api';
import { agentName, isLocalAgent } from '../filters';
import { useAgentNamesContext } from '../agent-names';
import { toYaml } from '../yaml';
import { CheckIcon } from './check-icon';
import { UptimeCell } from './check-facts';
import { CheckHistory } from './check-history';
import { CheckChart } from './check-chart';
import { CheckComponents } from './check-components';

const useStyles = makeStyles({
  title: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalM, minWidth: 0 },
  icon: { fontSize: '24px', color: tokens.colorNeutralForeground3, display: 'inline-flex' },
  titleText: { display: 'flex', flexDirection: 'column', minWidth: 0 },
  name: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  sub: { display: 'flex', gap: tokens.spacingHorizontalS, alignItems: 'center', color: tokens.colorNeutralForeground3, flexWrap: 'wrap', fontWeight: tokens.fontWeightRegular },
  endpoint: { fontFamily: tokens.fontFamilyMonospace, fontSize: tokens.fontSizeBase200, overflowWrap: 'anywhere' },
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalL, paddingBottom: tokens.spacingVerticalL },
  stats: {
    display: 'grid',
    gridTemplateColumns: 'repeat(auto-fit, minmax(150px, 1fr))',
    gap: tokens.spacingHorizontalM,
    padding: tokens.spacingHorizontalM,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusLarge,
    backgroundColor: tokens.colorNeutralBackground2,
  },
  stat: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXXS, minWidth: 0 },
  statWide: { gridColumn: 'span 2' },
  statKey: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200 },
  section: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS },
  sectionTitle: { fontWeight: tokens.fontWeightSemibold },
  muted: { color: tokens.colorNeutralForeground3 },
  footer: { justifyContent: 'flex-end', borderTop: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`, paddingTop: tokens.spacingVerticalM },
  select: { minWidth: '140px' },
});

/** The endpoint a check probes, read from its spec (url, endpoint, or host and port). */
function endpointOf(spec: unknown): string {
  if (!spec || typeof spec !== 'object') return '';
  const s = spec as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
  if (str(s.url)) return str(s.url);
  if (str(s.endpoint)) return str(s.endpoint);
  if (str(s.host)) return str(s.port) ? `${str(s.host)}:${str(s.port)}` : str(s.host);
  return '';
}

type TabId = 'history' | 'graph' | 'spec' | 'relationships' | 'playbooks';

export interface CheckDrawerProps {
  checkId: string;
  /** The row the drawer was opened from, shown while the detail loads. */
  summary?: CheckSummary;
  /** The page's window: where the drawer's Time Range starts. */
  window: string;
  /** The page's range itself: an absolute one (From/To) is the graph's window until another is chosen here. */
  range?: TimeRange;
  canRunNow: boolean;
  /** More footer actions for the open check (the incidents feature's Link to Incident), given by the route. */
  checkActions?: (check: CheckSummary) => ReactNode;
  onClose: () => void;
}

/** The check drawer (spec 000 §2): full size, opened by `checkId` in the URL. */
export function CheckDrawer({ checkId, summary, window: pageWindow, range: pageRange, canRunNow, checkActions, onClose }: CheckDrawerProps) {
  const s = useStyles();
  const [window, setWindow] = useState(pageWindow);
  const [tab, setTab] = useState<TabId>('history');
  const detail = useCheckDetail(checkId, window);
  const agentNames = useAgentNamesContext();
  const absolute = pageRange?.type === 'absolute' && window === pageWindow ? pageRange : null;
  const graphRange: GraphRange = useMemo(() => (absolute ? { from: absolute.from, to: absolute.to } : { since: window }), [absolute, window]);
  const graph = useCheckGraph(checkId, graphRange);
  const run = useRunCheck();
  // the footer's Playbooks menu (playbook_runs write) and the Playbooks tab of the check's runs (read; feature on)
  const playbooks = usePlaybookAbilities();
  const check: (CheckSummary & Partial<Pick<CheckDetail, 'spec' | 'canary'>>) | undefined = detail.data ?? summary;
  const endpoint = endpointOf(detail.data?.spec);
  const specYaml = useMemo(() => (detail.data ? toYaml(detail.data.spec ?? {}) : ''), [detail.data]);
  const windowOptions = useMemo(
    () => (MAPPED_TIME_RANGES.some((r) => r.range === window) ? MAPPED_TIME_RANGES : [{ range: window, display: absolute ? 'Custom' : `Last ${window}` }, ...MAPPED_TIME_RANGES]),
    [window, absolute],
  );

  const chartLabel = `Latency and status of ${check?.name ?? 'the check'} ${absolute ? 'in the chosen range' : `over the last ${window}`}`;
  const chart = (height: number) => <CheckChart graph={graph} height={height} label={chartLabel} />;

  let content;
  if (detail.error && !check) {
    content = (
      <EmptyState
        icon={<ErrorCircle24Regular />}
        title="This check could not be loaded"
        description={errorMessage(detail.error)}
        role="alert"
      />
    );
  } else if (!check) {
    content = <Spinner label="Loading check…" />;
  } else {
    // for an absolute range the figures are the graph's, computed over that range (the summary counts back from now)
    const absoluteStats = absolute && graph.data ? graph.data : null;
    const latency = absoluteStats?.latency ?? detail.data?.latency ?? check.latency;
    const uptimeOf = absoluteStats ? { uptime: absoluteStats.uptime } : check;
    content = (
      <div className={s.body}>
        {Object.keys(check.labels).length > 0 && <LabelChips labels={check.labels} limit={6} />}
        <div className={s.stats} role="group" aria-label="Check statistics">
          <div className={mergeWide(s)}>
            <span className={s.statKey}>Uptime</span>
            <UptimeCell check={uptimeOf} />
          </div>
          <div className={s.stat}>
            <span className={s.statKey}>Latency</span>
            <Text size={200}>
              95: {fmt(latency.p95)} · 97: {fmt(latency.p97)} · 99: {fmt(latency.p99)}
            </Text>
          </div>
          <div className={s.stat}>
            <span className={s.statKey}>Severity</span>
            <span>{check.severity ? <SeverityBadge severity={check.severity} /> : <Text className={s.muted}>–</Text>}</span>
          </div>
          <div className={s.stat}>
            <span className={s.statKey}>Last Run</span>
            <Text size={200} title={formatDateTime(check.last_runtime ?? null)}><Age value={check.last_runtime ?? null} /></Text>
          </div>
          <div className={s.stat}>
            <span className={s.statKey}>Transitioned</span>
            <Text size={200} title={formatDateTime(check.last_transition_time ?? null)}><Age value={check.last_transition_time ?? null} /></Text>
          </div>
          <div className={s.stat}>
            <span className={s.statKey}>Next Run</span>
            <Text size={200}>{check.next_runtime ? formatDateTime(check.next_runtime) : '–'}</Text>
          </div>
          <div className={s.stat}>
            <span className={s.statKey} id="check-range-label">Time Range</span>
            <Dropdown
              size="small"
              className={s.select}
              aria-labelledby="check-range-label"
              value={windowOptions.find((r) => r.range === window)?.display ?? window}
              selectedOptions={[window]}
              onOptionSelect={(_, d) => d.optionValue && setWindow(d.optionValue)}
            >
              {windowOptions.map((r) => (
                <Option key={r.range} value={r.range}>{r.display}</Option>
              ))}
            </Dropdown>
          </div>
        </div>
        {/* the Graph tab is the same chart, taller: one of them per view */}
        {tab !== 'graph' && (
          <section className={s.section} aria-label="Health Overview">
            <Text className={s.sectionTitle}>Health Overview</Text>
            {chart(180)}
          </section>
        )}
        <TabList selectedValue={tab} onTabSelect={(_, d) => setTab(d.value as TabId)}>
          <Tab value="history">History</Tab>
          <Tab value="graph">Graph</Tab>
          <Tab value="spec">Spec</Tab>
          <Tab value="relationships">Relationships</Tab>
          {playbooks.enabled && <Tab value="playbooks">Playbooks</Tab>}
        </TabList>
        <div role="tabpanel" aria-label={tab}>
          {tab === 'history' && <CheckHistory checkId={checkId} window={window} range={absolute} />}
          {tab === 'graph' && chart(360)}
          {tab === 'spec' &&
            (detail.data ? (
              <CodeViewer code={specYaml} language="yaml" selectionParam={false} label={`Spec of ${check.name}`} maxHeight="60vh" />
            ) : (
              <Spinner size="small" label="Loading spec…" />
            ))}
          {tab === 'relationships' && <CheckComponents checkId={checkId} />}
          {tab === 'playbooks' && playbooks.enabled && (
            <PlaybookRunsTable filter={{ check_id: checkId }} label={`Playbook runs of ${check.name}`} emptyMessage="No playbook has run on this check" />
          )}
        </div>
      </div>
    );
  }

  return (
    <OverlayDrawer open size="full" position="end" onOpenChange={(_, d) => !d.open && onClose()} aria-label={check ? `Check ${check.name}` : 'Check'}>
      <DrawerHeader>
        <DrawerHeaderTitle
          action={<Button appearance="subtle" aria-label="Close" icon={<Dismiss24Regular />} onClick={onClose} />}
        >
          <span className={s.title}>
            {check && <span className={s.icon}><CheckIcon type={check.type} /></span>}
            <span className={s.titleText}>
              <span className={s.name}>{check?.name ?? 'Check'}</span>
              {check && (
                <span className={s.sub}>
                  <HealthIndicator health={check.status} showLabel />
                  {check.namespace && <Text size={200}>{check.namespace}</Text>}
                  <Text size={200}>{check.type}</Text>
                  {endpoint && <span className={s.endpoint}>{endpoint}</span>}
                  {!isLocalAgent(check.agent_id) && (
                    <Badge appearance="tint" color="brand" size="small">Agent {agentName(check.agent_id, agentNames)}</Badge>
                  )}
                </span>
              )}
            </span>
          </span>
        </DrawerHeaderTitle>
      </DrawerHeader>
      <DrawerBody>{content}</DrawerBody>
      <DrawerFooter className={s.footer}>
        {check && checkActions?.(check)}
        {check && playbooks.enabled && <PlaybooksMenu resource={{ check_id: check.id }} canRun={playbooks.canRun} />}
        {check && (
          <RouterLink href={`/settings/canaries/${check.canary_id}`} asChild>
            <Button as="a" icon={<Edit20Regular />}>Edit</Button>
          </RouterLink>
        )}
        {canRunNow && check && (
          <Button
            appearance="primary"
            icon={run.isPending ? <Spinner size="tiny" /> : <Play20Regular />}
            disabled={run.isPending}
            onClick={() => run.mutate(check.id)}
          >
            {run.isPending ? 'Running…' : 'Run Now'}
          </Button>
        )}
      </DrawerFooter>
    </OverlayDrawer>
  );
}

function fmt(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '–' : formatDuration(ms);
}

function mergeWide(s: ReturnType<typeof useStyles>): string {
  return `${s.stat} ${s.statWide}`;
}
