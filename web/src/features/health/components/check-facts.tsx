import { tokens } from '@fluentui/react-components';
import { makeRowStyles } from '../../../components/data-table/row-styles';
import type { CheckSummary } from '@contracts/health';
import { UptimeMeter } from '../../../components/status/uptime-bar';
import { text200 } from '../../../components/status/text-styles';
import { formatDuration, formatPercent } from '../../../lib/format';
import { latencyOf, uptimePercent } from '../filters';

// Plain spans styled as Fluent's <Text size={200}> with each one's own additions folded in: these cells are in every
// row of a 10,000-check table, where a Text's style hooks and slots per cell add up on each scroll frame.
const useStyles = makeRowStyles({
  uptime: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
  // the meter itself is the flex item (it used to sit in a wrapper of this size: the same box, two elements fewer)
  bar: { flex: 1, minWidth: '40px', maxWidth: '120px' },
  pct: { ...text200, fontVariantNumeric: 'tabular-nums', minWidth: '44px', textAlign: 'end' },
  counts: { ...text200, color: tokens.colorNeutralForeground3, fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' },
  passed: { color: tokens.colorPaletteGreenForeground1 },
  failed: { color: tokens.colorPaletteRedForeground1 },
  muted: { ...text200, color: tokens.colorNeutralForeground3 },
  text: text200,
});

/**
 * Uptime: a bar, the percentage with one decimal, and passed/failed counts. The kit's UptimeBar colours by its
 * value (red above 90), so it is given the share of failed runs: a long red bar is a check that mostly fails.
 */
export function UptimeCell({ check }: { check: Pick<CheckSummary, 'uptime'> }) {
  const s = useStyles();
  const pct = uptimePercent(check);
  if (pct === null) return <span className={s.muted}>No runs</span>;
  const { passed, failed } = check.uptime;
  return (
    <span className={s.uptime}>
      <UptimeMeter className={s.bar} percent={100 - pct} label={`${formatPercent(100 - pct)} of runs failed`} />
      <span className={s.pct}>{formatPercent(pct)}</span>
      <span className={s.counts} aria-label={`${passed} passed, ${failed} failed`}>
        <span className={s.passed}>{passed}</span> / <span className={s.failed}>{failed}</span>
      </span>
    </span>
  );
}

/** p95, else p97, else p99 (spec 000 §9). */
export function LatencyText({ check }: { check: Pick<CheckSummary, 'latency'> }) {
  const s = useStyles();
  const ms = latencyOf(check);
  return ms === null ? <span className={s.muted}>–</span> : <span className={s.text}>{formatDuration(ms)}</span>;
}
