import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { Button, makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { ArrowUp16Regular, DocumentSearch24Regular, ErrorCircle24Regular, Link16Regular } from '@fluentui/react-icons';
import { EmptyState } from '../../components/empty-state';
import { Page } from '../../components/page';
import { RouteLink } from '../../components/route-link';
import { useUrlState } from '../../lib/url-state';
import { plainText } from './ansi-message';
import { useComponentsWithLogs, useLogSelectors, type LogsSearch } from './api';
import { LogsTable } from './logs-table';
import { LogsToolbar } from './logs-toolbar';
import { DEFAULT_START, EMPTY_TEXTS, LIVE_LINE_CAP, presetOf, type LogLine } from './model';
import { useLogStream } from './use-log-stream';

const LinkToIncidentDialog = lazy(() =>
  import('../incidents/components/link-to-incident-dialog').then((m) => ({ default: m.LinkToIncidentDialog })),
);

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, height: '100%', minHeight: '420px' },
  status: { display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: tokens.spacingHorizontalM, minHeight: '32px' },
  grow: { flex: 1 },
  muted: { color: tokens.colorNeutralForeground2 },
});

export interface LogsPageProps {
  /** Write on incidents and the incidents feature on: selected lines can be attached as evidence. */
  canAttach: boolean;
  currentUserId: string;
}

/**
 * /logs (spec 000 §2 "Logs page"): pick a component with log selectors and one of its selectors, search the lines
 * of a time range through POST /api/logs (streamed, shown as they arrive), tail them live, attach selected lines to
 * an incident. The URL holds topologyId, logsSelector, query, start (and live), so a link restores the view.
 */
export function LogsPage({ canAttach, currentUserId }: LogsPageProps) {
  const s = useStyles();
  const [url, setUrl] = useUrlState<{ topologyId: string; logsSelector: string; query: string; start: string; live: boolean }>({
    topologyId: '', logsSelector: '', query: '', start: DEFAULT_START, live: false,
  });
  const start = presetOf(url.start);
  const components = useComponentsWithLogs();
  const selectors = useLogSelectors(url.topologyId);
  const [refreshKey, setRefreshKey] = useState(0);
  const [selected, setSelected] = useState<Set<number>>(() => new Set());
  const [attaching, setAttaching] = useState(false);

  // the component's first selector goes into the URL once known (the reference's behaviour)
  const firstSelector = selectors.data?.[0]?.name;
  useEffect(() => {
    if (url.topologyId && !url.logsSelector && firstSelector) setUrl({ logsSelector: firstSelector });
  }, [url.topologyId, url.logsSelector, firstSelector, setUrl]);

  const name = url.logsSelector || firstSelector || '';
  const search = useMemo<LogsSearch | null>(() => {
    if (!url.topologyId || !selectors.isSuccess) return null;
    return {
      id: url.topologyId,
      ...(name ? { name } : {}),
      ...(url.query ? { query: url.query } : {}),
      start,
      ...(url.live ? { follow: true } : {}),
    };
  }, [url.topologyId, selectors.isSuccess, name, url.query, start, url.live]);
  const stream = useLogStream(search, refreshKey);

  // a new search starts with nothing selected
  useEffect(() => setSelected(new Set()), [stream.buffer]);

  const refetchComponents = components.refetch;
  const refresh = useCallback(() => {
    void refetchComponents();
    setRefreshKey((k) => k + 1);
  }, [refetchComponents]);

  const component = components.data?.find((c) => c.id === url.topologyId);
  const componentName = component?.name ?? url.topologyId;
  const count = stream.buffer.size;
  const selectedLines = useMemo(
    () => (selected.size ? stream.buffer.toArray().filter((l) => selected.has(l.id)) : []),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [selected, stream.buffer, stream.version],
  );

  let body;
  if (components.isError) {
    body = <EmptyState role="alert" icon={<ErrorCircle24Regular />} title={EMPTY_TEXTS.componentsError} />;
  } else if (!url.topologyId) {
    body = <EmptyState icon={<DocumentSearch24Regular />} title={EMPTY_TEXTS.noComponent} />;
  } else if (selectors.isError) {
    body = <EmptyState role="alert" icon={<ErrorCircle24Regular />} title="Unable to load the component's log selectors" />;
  } else if (stream.status === 'error' && !count) {
    body = <EmptyState role="alert" icon={<ErrorCircle24Regular />} title="Unable to load the logs" description={stream.error} />;
  } else if (!count && (stream.status === 'loading' || stream.status === 'idle')) {
    body = <Spinner label="Loading logs…" />;
  } else if (!count && stream.status === 'done') {
    body = <EmptyState icon={<DocumentSearch24Regular />} title={EMPTY_TEXTS.noResults} />;
  } else {
    body = (
      <LogsTable buffer={stream.buffer} version={stream.version} selected={selected} onSelectedChange={setSelected} live={url.live} />
    );
  }

  return (
    <Page title="Logs" onRefresh={refresh} refreshing={stream.status === 'loading' || components.isFetching}>
      <div className={s.root}>
        <LogsToolbar
          components={components.data}
          componentsLoading={components.isLoading}
          componentId={url.topologyId}
          onComponent={(id) => setUrl({ topologyId: id, logsSelector: '' }, { replace: false })}
          selectors={selectors.data}
          selector={name}
          onSelector={(n) => setUrl({ logsSelector: n }, { replace: false })}
          query={url.query}
          onQuery={(q) => setUrl({ query: q })}
          start={start}
          onStart={(v) => setUrl({ start: v }, { replace: false })}
          live={url.live}
          onLive={(live) => setUrl({ live })}
        />
        {url.topologyId && (
          <div className={s.status}>
            {component && (
              <RouteLink href={`/topology/${component.id}`}>
                <Link16Regular /> {component.name}
              </RouteLink>
            )}
            <Text className={s.muted} role="status" aria-live="polite">
              {statusText(stream.status, count, stream.total, stream.dropped)}
            </Text>
            {stream.error && (count > 0 || stream.status !== 'error') && (
              <Text role="alert" style={{ color: tokens.colorPaletteRedForeground1 }}>{stream.error}</Text>
            )}
            <span className={s.grow} />
            {stream.hasOlder && !url.live && (
              <Button size="small" icon={<ArrowUp16Regular />} onClick={stream.loadOlder} disabled={stream.loadingOlder}>
                {stream.loadingOlder ? 'Loading older lines…' : 'Load older lines'}
              </Button>
            )}
            {canAttach && selected.size > 0 && (
              <Button size="small" appearance="primary" onClick={() => setAttaching(true)}>
                Attach as evidence ({selected.size})
              </Button>
            )}
          </div>
        )}
        {body}
      </div>
      {attaching && (
        <Suspense fallback={null}>
          <LinkToIncidentDialog
            currentUserId={currentUserId}
            onClose={() => setAttaching(false)}
            target={{
              checkId: '',
              name: `${componentName} (${selectedLines.length} ${selectedLines.length === 1 ? 'line' : 'lines'})`,
              noun: 'logs of',
              evidence: logEvidence(url.topologyId, componentName, name, url.query, selectedLines),
            }}
          />
        </Suspense>
      )}
    </Page>
  );
}

/** The selected lines as a `log` evidence: plain text (ANSI escapes removed), the component and search it came from. */
export function logEvidence(componentId: string, componentName: string, selector: string, query: string, lines: LogLine[]) {
  return {
    type: 'log',
    component_id: componentId,
    evidence: {
      component: { id: componentId, name: componentName },
      selector,
      ...(query ? { query } : {}),
      lines: lines.map((l) => ({
        timestamp: l.timestamp,
        message: plainText(l.message),
        labels: l.labels,
        ...(l.severity ? { severity: l.severity } : {}),
      })),
    },
  };
}

function statusText(status: string, count: number, total: number | null, dropped: number): string {
  const lines = `${count.toLocaleString()} ${count === 1 ? 'line' : 'lines'}`;
  switch (status) {
    case 'loading':
      return 'Searching…';
    case 'streaming':
      return `${lines}, more arriving…`;
    case 'live':
      return `Live: ${lines}${dropped ? ` (the oldest ${dropped.toLocaleString()} dropped, ${LIVE_LINE_CAP.toLocaleString()} kept)` : ''}`;
    case 'done':
      return total !== null && total > count ? `${lines} of ${total.toLocaleString()}` : lines;
    default:
      return count ? lines : '';
  }
}
