import { useMemo } from 'react';
import { makeStyles, Skeleton, SkeletonItem, Text, tokens, Tooltip } from '@fluentui/react-components';
import { HEALTH_TOKENS } from '../../../components/status/health-indicator';
import { formatDateTime, formatDuration } from '../../../lib/format';
import { useComponentHistory } from '../api-extra';
import { bucketsToSegments, summariseSegments, type Segment } from './segments';

const WEEK_MS = 7 * 24 * 3600 * 1000;

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXS },
  title: { fontWeight: tokens.fontWeightSemibold, color: tokens.colorNeutralForeground2 },
  strip: {
    display: 'flex',
    height: '16px',
    borderRadius: tokens.borderRadiusMedium,
    overflow: 'hidden',
    backgroundColor: tokens.colorNeutralBackground5,
  },
  // at least a sliver: an hour of trouble in a week is still seen
  segment: { minWidth: '2px', height: '100%' },
  axis: { display: 'flex', justifyContent: 'space-between', color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase100 },
  note: { color: tokens.colorNeutralForeground3 },
});

function SegmentPiece({ segment }: { segment: Segment }) {
  const s = useStyles();
  const text = `${segment.status}: ${formatDateTime(segment.start)} – ${formatDateTime(segment.end)} (${formatDuration(segment.end - segment.start)})`;
  return (
    <Tooltip content={text} relationship="description" withArrow>
      <div
        className={s.segment}
        style={{ flexGrow: segment.fraction, flexBasis: 0, backgroundColor: segment.color === 'none' ? 'transparent' : HEALTH_TOKENS[segment.color] }}
        data-status={segment.status}
        data-testid="health-history-segment"
      />
    </Tooltip>
  );
}

/** The component's last 7 days of status as a coloured strip: a piece per run of equal status, its time on hover. */
export function HealthHistorySlot({ componentId }: { componentId: string }) {
  const s = useStyles();
  const history = useComponentHistory(componentId, '7d');
  const now = history.dataUpdatedAt || Date.now();
  const segments = useMemo(
    () => (history.data ? bucketsToSegments(history.data.buckets, now - WEEK_MS, now) : []),
    [history.data, now],
  );
  return (
    <section className={s.root} aria-label="Health history">
      <Text size={200} className={s.title}>Health, last 7 days</Text>
      {history.isPending ? (
        <Skeleton aria-label="Loading health history"><SkeletonItem size={16} /></Skeleton>
      ) : history.isError ? (
        <Text size={200} className={s.note}>Health history is not available.</Text>
      ) : (
        <>
          <div className={s.strip} role="img" aria-label={`Health over the last 7 days: ${summariseSegments(segments)}`} data-testid="health-history-strip">
            {segments.map((seg) => <SegmentPiece key={seg.start} segment={seg} />)}
          </div>
          <div className={s.axis} aria-hidden>
            <span>7 days ago</span>
            <span>now</span>
          </div>
        </>
      )}
    </section>
  );
}
