import { Badge, makeStyles, tokens } from '@fluentui/react-components';
import {
  Money16Regular, ShieldError16Regular, Gauge16Regular, PlugDisconnected16Regular, Gavel16Regular, Wrench16Regular,
  ArrowSync16Regular, CloudOff16Regular, type FluentIcon,
} from '@fluentui/react-icons';
import { humanize } from '../model';

export { IncidentStatusBadge, SeverityBadge } from '../../../components/status/status-badge';

const TYPE_ICONS: Record<string, FluentIcon> = {
  cost: Money16Regular,
  availability: CloudOff16Regular,
  performance: Gauge16Regular,
  security: ShieldError16Regular,
  integration: PlugDisconnected16Regular,
  compliance: Gavel16Regular,
  technicalDebt: Wrench16Regular,
  reliability: ArrowSync16Regular,
};

const useStyles = makeStyles({
  type: { display: 'inline-flex', alignItems: 'center', gap: tokens.spacingHorizontalXS, color: tokens.colorNeutralForeground2 },
  icon: { flexShrink: 0, color: tokens.colorNeutralForeground3 },
});

/** An incident type with its icon: "Availability". */
export function IncidentType({ type }: { type: string }) {
  const s = useStyles();
  const Icon = TYPE_ICONS[type];
  return (
    <span className={s.type}>
      {Icon && <Icon className={s.icon} aria-hidden />}
      {humanize(type)}
    </span>
  );
}

const HYPOTHESIS_COLORS: Record<string, 'success' | 'brand' | 'informative' | 'warning' | 'subtle' | 'danger'> = {
  proven: 'success',
  likely: 'brand',
  possible: 'informative',
  unlikely: 'warning',
  improbable: 'warning',
  disproven: 'subtle',
};

export function HypothesisStatusBadge({ status }: { status: string }) {
  return (
    <Badge appearance="tint" shape="rounded" color={HYPOTHESIS_COLORS[status] ?? 'informative'}>
      {humanize(status)}
    </Badge>
  );
}
