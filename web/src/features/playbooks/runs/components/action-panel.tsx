import { Link, makeStyles, Text, tokens } from '@fluentui/react-components';
import { CodeViewer } from '../../../../components/code/code-viewer';
import { formatDateTime } from '../../../../lib/format';
import { useMemo } from 'react';
import { useRunAction, useStoredLines, type Artifact } from '../api-runs';
import { INITIALIZATION_ID, mergeLines, resultOutput, type LogLine, type StepAction } from '../model';
import { LogView } from './log-view';
import { RunStatusBadge } from './run-status-badge';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM, minWidth: 0 },
  head: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalM, flexWrap: 'wrap' },
  title: { fontSize: tokens.fontSizeBase400, fontWeight: tokens.fontWeightSemibold, margin: 0 },
  muted: { color: tokens.colorNeutralForeground3 },
  error: {
    margin: 0, whiteSpace: 'pre-wrap', wordBreak: 'break-word', color: tokens.colorPaletteRedForeground1,
    backgroundColor: tokens.colorPaletteRedBackground1, padding: tokens.spacingHorizontalM, borderRadius: tokens.borderRadiusMedium,
    fontFamily: tokens.fontFamilyMonospace, fontSize: tokens.fontSizeBase200,
  },
  section: { margin: 0, fontSize: tokens.fontSizeBase300, fontWeight: tokens.fontWeightSemibold },
  artifacts: { margin: 0, paddingInlineStart: tokens.spacingHorizontalL },
});

export interface ActionPanelProps {
  step: StepAction & { artifacts?: Artifact[] | null };
  /** Lines the socket pushed for this action (merged with the stored ones by seq). */
  liveLines: LogLine[];
  /** The live socket is up (no polling). */
  live: boolean;
}

/** The selected action: its output (stored lines, then live ones), error, result as JSON and artifacts. */
export function ActionPanel({ step, liveLines, live }: ActionPanelProps) {
  const s = useStyles();
  const running = step.status === 'running';
  const real = step.id !== INITIALIZATION_ID;
  const detail = useRunAction(real ? step.id : null, live, running);
  const stored = useStoredLines(real ? step.id : null, live, running);
  const lines = useMemo(() => mergeLines(stored.data ?? [], liveLines), [stored.data, liveLines]);
  const result = detail.data?.result ?? step.result;
  const output = resultOutput(result);
  const hasResult = result !== null && result !== undefined && !(typeof result === 'object' && Object.keys(result as object).length === 0);
  const artifacts = step.artifacts ?? [];
  return (
    <section className={s.root} aria-label={`Action ${step.name}`} data-testid="action-panel">
      <div className={s.head}>
        <h2 className={s.title}>{step.name}</h2>
        <RunStatusBadge status={step.status} />
        {step.start_time && <Text size={200} className={s.muted}>Started {formatDateTime(step.start_time)}</Text>}
        {step.end_time && <Text size={200} className={s.muted}>Ended {formatDateTime(step.end_time)}</Text>}
      </div>
      {step.error && <pre className={s.error} role="alert" data-testid="action-error">{step.error}</pre>}
      {real && (
        <LogView
          lines={lines}
          stdout={output.stdout}
          stderr={output.stderr}
          follow={running}
          label={`Output of ${step.name}`}
          emptyText={running ? 'Waiting for output…' : step.status === 'scheduled' || step.status === 'sleeping' ? 'Not started yet' : 'No output'}
        />
      )}
      {hasResult && (
        <>
          <h3 className={s.section}>Result</h3>
          <CodeViewer code={typeof result === 'string' ? result : (result as object)} language="json" selectionParam={false} maxHeight="320px" label={`Result of ${step.name}`} />
        </>
      )}
      {artifacts.length > 0 && (
        <>
          <h3 className={s.section}>Artifacts</h3>
          <ul className={s.artifacts}>
            {artifacts.map((a) => (
              <li key={a.id}>
                <Link href={`/api/artifacts/download/${encodeURIComponent(a.id)}`}>{a.filename || a.path || a.id}</Link>
                {typeof a.size === 'number' && <Text size={200} className={s.muted}> ({a.size} bytes)</Text>}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
