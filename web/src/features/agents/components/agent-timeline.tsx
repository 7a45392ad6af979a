import { useMemo } from 'react';
import { Caption1, makeStyles, Spinner, Subtitle2, tokens } from '@fluentui/react-components';
import { formatDateTime } from '../../../lib/format';
import { useAgentTelemetry } from '../api';
import { statusBands, type TelemetryPoint } from '../model';

const DAY_MS = 24 * 3600_000;
const W = 560;

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXS },
  svg: { width: '100%', height: 'auto', display: 'block' },
  legend: { display: 'flex', gap: tokens.spacingHorizontalL, color: tokens.colorNeutralForeground2, flexWrap: 'wrap' },
  muted: { color: tokens.colorNeutralForeground3 },
});

/** A sparkline path of `values` over [from, to] in a box of height `h` at `y0`. */
function linePath(points: readonly TelemetryPoint[], pick: (p: TelemetryPoint) => number, from: number, h: number, y0: number): string {
  const max = Math.max(1, ...points.map(pick));
  return points
    .map((p, i) => {
      const x = ((Date.parse(p.time) - from) / DAY_MS) * W;
      const y = y0 + h - (pick(p) / max) * h;
      return `${i ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
}

/**
 * The editor's 24 h health: Online/Offline bands from the pings' telemetry (a gap over 61 s is Offline), push lag
 * and buffer depth below. Telemetry comes with each ping only when the agent's Telemetry is on.
 */
export function AgentTimeline({ agentId, now }: { agentId: string; now: number }) {
  const s = useStyles();
  // the window moves with each refetch (live `agents` events), not with every clock tick
  const since = useMemo(() => new Date(Date.now() - DAY_MS).toISOString(), [agentId]);
  const telemetry = useAgentTelemetry(agentId, since);
  const points = telemetry.data ?? [];
  const from = now - DAY_MS;
  const bands = useMemo(() => statusBands(points.map((p) => Date.parse(p.time)), from, now), [points, from, now]);
  const lag = (p: TelemetryPoint) => p.push_lag_ms ?? 0;
  const buffer = (p: TelemetryPoint) => p.buffer_rows ?? 0;
  const last = points[points.length - 1];
  const onlineMs = bands.filter((b) => b.status === 'Online').reduce((n, b) => n + b.end - b.start, 0);

  return (
    <section className={s.root} aria-label="Agent health, last 24 hours">
      <Subtitle2>Health (24 h)</Subtitle2>
      {telemetry.isLoading ? (
        <Spinner size="tiny" label="Loading telemetry…" />
      ) : !points.length ? (
        <Caption1 className={s.muted}>No telemetry in the last 24 hours. Turn Telemetry on in the agent's install to see its health here.</Caption1>
      ) : (
        <>
          <svg
            className={s.svg}
            viewBox={`0 0 ${W} 96`}
            role="img"
            aria-label={`Online ${Math.round((onlineMs / DAY_MS) * 100)}% of the last 24 hours; latest push lag ${lag(last!)} ms, buffer ${buffer(last!)} rows`}
          >
            {bands.map((b) => (
              <rect
                key={b.start}
                x={((b.start - from) / DAY_MS) * W}
                y={0}
                width={Math.max(1, ((b.end - b.start) / DAY_MS) * W)}
                height={14}
                fill={b.status === 'Online' ? tokens.colorPaletteGreenBackground3 : tokens.colorNeutralBackground5}
              >
                <title>{`${b.status} ${formatDateTime(b.start)} – ${formatDateTime(b.end)}`}</title>
              </rect>
            ))}
            <path d={linePath(points, lag, from, 32, 20)} fill="none" stroke={tokens.colorPaletteBerryForeground1} strokeWidth={1.5} />
            <path d={linePath(points, buffer, from, 32, 60)} fill="none" stroke={tokens.colorBrandForeground1} strokeWidth={1.5} />
          </svg>
          <div className={s.legend}>
            <Caption1>Online / Offline</Caption1>
            <Caption1>Push lag: {lag(last!)} ms (max {Math.max(...points.map(lag))} ms)</Caption1>
            <Caption1>Buffer: {buffer(last!)} rows</Caption1>
            {!!last!.dropped_rows && <Caption1>Dropped: {last!.dropped_rows} rows</Caption1>}
          </div>
        </>
      )}
    </section>
  );
}
