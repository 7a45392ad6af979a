import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { Button, makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { ErrorCircle24Regular } from '@fluentui/react-icons';
import { EmptyState } from '../../../../components/empty-state';
import { Page } from '../../../../components/page';
import { RouteLink } from '../../../../components/route-link';
import { errorMessage } from '../../../../lib/api-client';
import { formatDateTime } from '../../../../lib/format';
import { useUrlState } from '../../../../lib/url-state';
import { useChildRuns, useRun, useRunActions } from '../api-runs';
import { useLiveSocketUp, useRunLogs } from '../live';
import { durationText, isFinalRun, isSelectable, runResource, runSteps, type LogLine } from '../model';
import { ActionPanel } from './action-panel';
import { RunCommands } from './run-commands';
import { RunStatusBadge } from './run-status-badge';
import { RunSteps } from './run-steps';

const useStyles = makeStyles({
  header: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS, marginBottom: tokens.spacingVerticalL },
  titleRow: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalM, flexWrap: 'wrap' },
  title: { margin: 0, fontSize: tokens.fontSizeBase500, fontWeight: tokens.fontWeightSemibold },
  facts: { display: 'flex', flexWrap: 'wrap', gap: `${tokens.spacingVerticalXS} ${tokens.spacingHorizontalXL}`, margin: 0 },
  fact: { display: 'flex', gap: tokens.spacingHorizontalXS },
  term: { color: tokens.colorNeutralForeground3 },
  dd: { margin: 0 },
  body: { display: 'grid', gridTemplateColumns: 'minmax(220px, 300px) minmax(0, 1fr)', gap: tokens.spacingHorizontalXL, alignItems: 'start' },
  side: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalL },
  section: { margin: `0 0 ${tokens.spacingVerticalS}`, fontSize: tokens.fontSizeBase300, fontWeight: tokens.fontWeightSemibold },
  children: { margin: 0, paddingInlineStart: tokens.spacingHorizontalL },
  muted: { color: tokens.colorNeutralForeground3 },
  runError: { color: tokens.colorPaletteRedForeground1, whiteSpace: 'pre-wrap' },
});

const NO_LINES: LogLine[] = [];

/** A clock for "scheduled in 3m" and running durations; ticks only while the run can change. */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, [ticking]);
  return now;
}

export interface RunDetailProps {
  id: string;
  canWrite: boolean;
  user: { id: string; email: string | null };
  runHref: (id: string) => string;
  playbookHref: (id: string) => string;
}

/** /playbooks/runs/{id}: the run's header and commands, its actions, the selected action's live log. */
export function RunDetail({ id, canWrite, user, runHref, playbookHref }: RunDetailProps) {
  const s = useStyles();
  const live = useLiveSocketUp();
  const run = useRun(id, live);
  const changing = !!run.data && !isFinalRun(run.data.status);
  const actions = useRunActions(id, live, changing);
  const children = useChildRuns(id);
  const lines = useRunLogs(id, !!run.data);
  const now = useNow(changing);
  const [{ action: chosen }, setUrl] = useUrlState({ action: '' });

  const steps = useMemo(() => (run.data ? runSteps(run.data, actions.data ?? []) : []), [run.data, actions.data]);
  // the chosen action, else the one running, else the last one that can be opened
  const selected = useMemo(() => {
    const openable = steps.filter(isSelectable);
    return (
      openable.find((st) => st.id === chosen) ??
      openable.find((st) => st.status === 'running') ??
      openable[openable.length - 1] ??
      null
    );
  }, [steps, chosen]);

  if (run.isPending) return <Page title="Playbook Run"><Spinner label="Loading run…" /></Page>;
  if (run.error || !run.data) {
    return (
      <Page title="Playbook Run">
        <EmptyState
          icon={<ErrorCircle24Regular />}
          title={run.error ? 'The run could not be loaded' : 'Playbook run not found'}
          description={run.error ? errorMessage(run.error) : `There is no playbook run with id ${id}.`}
          role="alert"
          actions={run.error ? <Button onClick={() => void run.refetch()}>Try again</Button> : undefined}
        />
      </Page>
    );
  }

  const r = run.data;
  const name = r.playbooks?.title || r.playbooks?.name || r.playbook_id;
  const resource = runResource(r);
  const facts: Array<[string, ReactNode]> = [
    ['Playbook', <RouteLink key="p" href={playbookHref(r.playbook_id)}>{name}</RouteLink>],
    ...(resource ? [['Resource', <RouteLink key="r" href={resource.href}>{resource.name}</RouteLink>] as [string, ReactNode]] : []),
    ['Created by', r.created_by?.name ?? 'System'],
    ['Created', formatDateTime(r.created_at)],
    ...(r.start_time ? [['Started', formatDateTime(r.start_time)] as [string, ReactNode]] : []),
    ...(r.end_time ? [['Ended', formatDateTime(r.end_time)] as [string, ReactNode]] : []),
    ...(r.start_time ? [['Duration', durationText(r.start_time, r.end_time, now)] as [string, ReactNode]] : []),
    ...(r.parent_id ? [['Parent run', <RouteLink key="pr" href={runHref(r.parent_id)}>{r.parent_id.slice(0, 8)}</RouteLink>] as [string, ReactNode]] : []),
    ...(r.playbook_approvals.length
      ? [['Approved by', r.playbook_approvals.map((a) => a.person_id?.name ?? a.team_id?.name ?? '').filter(Boolean).join(', ')] as [string, ReactNode]]
      : []),
  ];

  return (
    <Page title="Playbook Run" onRefresh={() => void Promise.all([run.refetch(), actions.refetch(), children.refetch()])} refreshing={run.isFetching || actions.isFetching}>
      <header className={s.header} data-testid="run-header">
        <div className={s.titleRow}>
          <h1 className={s.title}>{name}</h1>
          <RunStatusBadge status={r.status} />
        </div>
        <dl className={s.facts}>
          {facts.map(([term, value]) => (
            <div key={term} className={s.fact}>
              <dt className={s.term}>{term}</dt>
              <dd className={s.dd}>{value}</dd>
            </div>
          ))}
        </dl>
        {r.error && steps[0]?.id !== 'initialization' && <Text className={s.runError} role="alert">{r.error}</Text>}
        <RunCommands run={r} steps={steps} lines={lines} canWrite={canWrite} user={user} />
      </header>
      <div className={s.body}>
        <div className={s.side}>
          <div>
            <h2 className={s.section}>Actions</h2>
            {steps.length === 0 ? (
              <Text className={s.muted}>
                {actions.isPending ? 'Loading actions…' : r.status === 'pending_approval' ? 'Waiting for approval' : 'No actions have run yet'}
              </Text>
            ) : (
              <RunSteps steps={steps} selected={selected?.id ?? null} onSelect={(action) => setUrl({ action })} now={now} />
            )}
          </div>
          {(children.data?.length ?? 0) > 0 && (
            <div>
              <h2 className={s.section}>Child runs</h2>
              <ul className={s.children}>
                {children.data?.map((c) => (
                  <li key={c.id}>
                    <RouteLink href={runHref(c.id)}>{c.playbooks?.title || c.playbooks?.name || c.id.slice(0, 8)}</RouteLink>{' '}
                    <RunStatusBadge status={c.status} />
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
        {selected ? <ActionPanel key={selected.id} step={selected} liveLines={lines.get(selected.id) ?? NO_LINES} live={live} /> : <span />}
      </div>
    </Page>
  );
}
