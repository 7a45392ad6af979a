import { mergeClasses, tokens } from '@fluentui/react-components';
import { makeRowStyles } from '../data-table/row-styles';
import { formatPercent } from '../../lib/format';
import { HEALTH_TOKENS } from './health-indicator';
import { uptimeBarColor } from './health';
import { text200 } from './text-styles';

const useStyles = makeRowStyles({
  root: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
  track: {
    flex: 1,
    minWidth: '40px',
    height: '6px',
    borderRadius: tokens.borderRadiusCircular,
    backgroundColor: tokens.colorNeutralBackground5,
    overflow: 'hidden',
  },
  fill: { height: '100%', borderRadius: tokens.borderRadiusCircular },
  value: { ...text200, minWidth: '48px', textAlign: 'end', fontVariantNumeric: 'tabular-nums' },
});

export interface UptimeBarProps {
  /** 0–100. */
  percent: number;
  /** The accessible name (default "Uptime"). */
  label?: string;
  hideValue?: boolean;
}

/** A thin meter with the spec's colours: green, orange above 75, red above 90 (000 §9). */
export function UptimeBar({ percent, label = 'Uptime', hideValue }: UptimeBarProps) {
  const s = useStyles();
  return (
    <div className={s.root}>
      <UptimeMeter percent={percent} label={label} />
      {!hideValue && <span className={s.value}>{formatPercent(Math.max(0, Math.min(100, percent)))}</span>}
    </div>
  );
}

/**
 * The bar of UptimeBar alone (no wrapper, no value), for a table cell that lays it out itself: `className` sizes it
 * within the cell's own flex row.
 */
export function UptimeMeter({ percent, label = 'Uptime', className }: { percent: number; label?: string; className?: string }) {
  const s = useStyles();
  const value = Math.max(0, Math.min(100, percent));
  const color = uptimeBarColor(value);
  return (
    <div
      className={mergeClasses(s.track, className)}
      role="meter"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={value}
      data-color={color}
    >
      <div className={s.fill} style={{ width: `${value}%`, backgroundColor: HEALTH_TOKENS[color] }} />
    </div>
  );
}
