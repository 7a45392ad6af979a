import { makeStyles, mergeClasses, Text, tokens } from '@fluentui/react-components';
import { healthColor, type HealthColor } from './health';

export const HEALTH_TOKENS: Record<HealthColor, string> = {
  red: tokens.colorStatusDangerBackground3,
  gray: tokens.colorNeutralForeground4,
  orange: tokens.colorStatusWarningBackground3,
  green: tokens.colorStatusSuccessBackground3,
};

const useStyles = makeStyles({
  root: { display: 'inline-flex', alignItems: 'center', gap: tokens.spacingHorizontalSNudge, minWidth: 0 },
  dot: { flexShrink: 0, borderRadius: tokens.borderRadiusCircular },
  small: { width: '8px', height: '8px' },
  medium: { width: '10px', height: '10px' },
  label: { textTransform: 'capitalize', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
});

export interface HealthIndicatorProps {
  /** healthy, unhealthy, warning, unknown, degraded, missing, suspended, mixed, or a boolean. */
  health: string | boolean | null | undefined;
  /** Show the value as text next to the dot (otherwise it is the dot's accessible name). */
  showLabel?: boolean;
  size?: 'small' | 'medium';
}

/** A coloured dot for a health value, by the spec's colour rules. */
export function HealthIndicator({ health, showLabel, size = 'medium' }: HealthIndicatorProps) {
  const s = useStyles();
  const color = healthColor(health);
  const text = health === null || health === undefined || health === '' ? 'unknown' : String(health);
  return (
    <span className={s.root} data-health={color}>
      <span
        className={mergeClasses(s.dot, s[size])}
        style={{ backgroundColor: HEALTH_TOKENS[color] }}
        role={showLabel ? undefined : 'img'}
        aria-label={showLabel ? undefined : text}
        aria-hidden={showLabel || undefined}
      />
      {showLabel && (
        <Text size={200} className={s.label}>
          {text}
        </Text>
      )}
    </span>
  );
}
