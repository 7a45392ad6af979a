import { makeStyles, Text, tokens } from '@fluentui/react-components';
import type { CheckSummary } from '@contracts/health';
import { UptimeBar } from '../../../components/status/uptime-bar';
import { formatDuration, formatPercent } from '../../../lib/format';
import { latencyOf, uptimePercent } from '../filters';

const useStyles = makeStyles({
  uptime: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
  bar: { flex: 1, minWidth: '40px', maxWidth: '120px' },
  pct: { fontVariantNumeric: 'tabular-nums', minWidth: '44px', textAlign: 'end' },
  counts: { color: tokens.colorNeutralForeground3, fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' },
  passed: { color: tokens.colorPaletteGreenForeground1 },
  failed: { color: tokens.colorPaletteRedForeground1 },
  muted: { color: tokens.colorNeutralForeground3 },
});

/**
 * Uptime: a bar, the percentage with one decimal, and passed/failed counts. The kit's UptimeBar colours by its
 * value (red above 90), so it is given the share of failed runs: a long red bar is a check that mostly fails.
 */
export function UptimeCell({ check }: { check: Pick<CheckSummary, 'uptime'> }) {
  const s = useStyles();
  const pct = uptimePercent(check);
  if (pct === null) return <Text size={200} className={s.muted}>No runs</Text>;
  const { passed, failed } = check.uptime;
  return (
    <span className={s.uptime}>
      <span className={s.bar}>
        <UptimeBar percent={100 - pct} label={`${formatPercent(100 - pct)} of runs failed`} hideValue />
      </span>
      <Text size={200} className={s.pct}>{formatPercent(pct)}</Text>
      <Text size={200} className={s.counts} aria-label={`${passed} passed, ${failed} failed`}>
        <span className={s.passed}>{passed}</span> / <span className={s.failed}>{failed}</span>
      </Text>
    </span>
  );
}

/** p95, else p97, else p99 (spec 000 §9). */
export function LatencyText({ check }: { check: Pick<CheckSummary, 'latency'> }) {
  const s = useStyles();
  const ms = latencyOf(check);
  return ms === null ? <Text size={200} className={s.muted}>–</Text> : <Text size={200}>{formatDuration(ms)}</Text>;
}
