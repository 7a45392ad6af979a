import { Badge, type BadgeProps } from '@fluentui/react-components';
import { healthColor, incidentStatusColor } from './health';

const HEALTH_BADGE: Record<ReturnType<typeof healthColor>, BadgeProps['color']> = {
  red: 'danger',
  gray: 'subtle',
  orange: 'warning',
  green: 'success',
};

const SEVERITY_BADGE: Record<string, BadgeProps['color']> = {
  info: 'informative',
  low: 'informative',
  warning: 'warning',
  medium: 'warning',
  high: 'severe',
  blocker: 'danger',
  critical: 'danger',
};

export interface StatusBadgeProps {
  /** The text; also picks the colour by the health rules unless `color` is given. */
  status: string;
  color?: BadgeProps['color'];
  appearance?: BadgeProps['appearance'];
}

/** A status word in a pill, coloured like the health indicator (healthy green, warning orange, failing red). */
export function StatusBadge({ status, color, appearance = 'tint' }: StatusBadgeProps) {
  return (
    <Badge appearance={appearance} color={color ?? HEALTH_BADGE[healthColor(status)]} shape="rounded">
      {status}
    </Badge>
  );
}

/** Incident and change severities: info … critical. */
export function SeverityBadge({ severity }: { severity: string }) {
  return (
    <Badge appearance="tint" shape="rounded" color={SEVERITY_BADGE[severity.toLowerCase()] ?? 'subtle'}>
      {severity}
    </Badge>
  );
}

/** Spec 000 §4: open light green, closed gray, every other status blue. */
export function IncidentStatusBadge({ status }: { status: string }) {
  const c = incidentStatusColor(status);
  return (
    <Badge
      shape="rounded"
      appearance={c === 'lightgreen' ? 'tint' : c === 'gray' ? 'tint' : 'filled'}
      color={c === 'lightgreen' ? 'success' : c === 'gray' ? 'subtle' : 'brand'}
    >
      {status}
    </Badge>
  );
}
