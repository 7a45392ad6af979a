import { tokens, type GriffelStyle } from '@fluentui/react-components';
import { makeRowStyles } from '../data-table/row-styles';
import { healthColor, type HealthColor } from './health';
import { text200 } from './text-styles';

export const HEALTH_TOKENS: Record<HealthColor, string> = {
  red: tokens.colorStatusDangerBackground3,
  gray: tokens.colorNeutralForeground4,
  orange: tokens.colorStatusWarningBackground3,
  green: tokens.colorStatusSuccessBackground3,
};

const SIZES = { small: '8px', medium: '10px' } as const;
type Size = keyof typeof SIZES;

// one class per size and colour, so a row's dot takes a single class name and no inline style
const dots = {} as Record<`${Size}_${HealthColor}`, GriffelStyle>;
for (const size of Object.keys(SIZES) as Size[]) {
  for (const color of Object.keys(HEALTH_TOKENS) as HealthColor[]) {
    dots[`${size}_${color}`] = {
      flexShrink: 0,
      borderRadius: tokens.borderRadiusCircular,
      width: SIZES[size],
      height: SIZES[size],
      backgroundColor: HEALTH_TOKENS[color],
    };
  }
}
// one style hook per indicator (each mounted hook re-inserts its rules: a table mounts a screenful per scroll frame)
const useStyles = makeRowStyles({
  ...dots,
  root: { display: 'inline-flex', alignItems: 'center', gap: tokens.spacingHorizontalSNudge, minWidth: 0 },
  label: { ...text200, textTransform: 'capitalize', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
});

export interface HealthIndicatorProps {
  /** healthy, unhealthy, warning, unknown, degraded, missing, suspended, mixed, or a boolean. */
  health: string | boolean | null | undefined;
  /** Show the value as text next to the dot (otherwise it is the dot's accessible name). */
  showLabel?: boolean;
  size?: Size;
}

/** A coloured dot for a health value, by the spec's colour rules. */
export function HealthIndicator({ health, showLabel, size = 'medium' }: HealthIndicatorProps) {
  const s = useStyles();
  const color = healthColor(health);
  const text = health === null || health === undefined || health === '' ? 'unknown' : String(health);
  if (!showLabel) {
    return (
      <span className={s.root} data-health={color}>
        <span className={s[`${size}_${color}`]} role="img" aria-label={text} />
      </span>
    );
  }
  return (
    <span className={s.root} data-health={color}>
      <span className={s[`${size}_${color}`]} aria-hidden />
      <span className={s.label}>{text}</span>
    </span>
  );
}
