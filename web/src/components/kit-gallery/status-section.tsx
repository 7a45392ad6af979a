import { makeStyles, Text, tokens } from '@fluentui/react-components';
import { formatAge, formatCurrency, formatDuration, formatPercent } from '../../lib/format';
import { HealthIndicator } from '../status/health-indicator';
import { PersonAvatar, PersonAvatarGroup } from '../status/person-avatars';
import { LabelChips } from '../status/label-chips';
import { IncidentStatusBadge, SeverityBadge, StatusBadge } from '../status/status-badge';
import { UptimeBar } from '../status/uptime-bar';
import { GallerySection } from './section';
import { PEOPLE } from './samples';

const useStyles = makeStyles({
  grid: { display: 'grid', gridTemplateColumns: '140px 1fr', rowGap: tokens.spacingVerticalM, columnGap: tokens.spacingHorizontalL, alignItems: 'center' },
  label: { color: tokens.colorNeutralForeground3 },
  row: { display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: tokens.spacingHorizontalM },
  bars: { display: 'grid', gridTemplateColumns: 'repeat(3, minmax(0, 160px))', gap: tokens.spacingHorizontalL },
  mono: { fontFamily: tokens.fontFamilyMonospace, fontSize: tokens.fontSizeBase200 },
});

const HEALTH = ['healthy', 'unhealthy', 'warning', 'unknown', 'degraded', 'missing', 'suspended', 'mixed'];
const NOW = Date.UTC(2026, 2, 18, 10, 0, 0);

export function StatusSection() {
  const s = useStyles();
  return (
    <GallerySection id="status" title="Status and formatting" description="Health colours, badges, avatars, label chips, the uptime bar and the shared number formats.">
      <div className={s.grid}>
        <Text className={s.label}>Health</Text>
        <div className={s.row}>
          {HEALTH.map((h) => (
            <HealthIndicator key={h} health={h} showLabel />
          ))}
        </div>
        <Text className={s.label}>Badges</Text>
        <div className={s.row}>
          <StatusBadge status="healthy" />
          <StatusBadge status="warning" />
          <StatusBadge status="unhealthy" />
          <StatusBadge status="unknown" />
          <IncidentStatusBadge status="open" />
          <IncidentStatusBadge status="investigating" />
          <IncidentStatusBadge status="closed" />
          {['info', 'low', 'medium', 'high', 'critical'].map((sv) => (
            <SeverityBadge key={sv} severity={sv} />
          ))}
        </div>
        <Text className={s.label}>People</Text>
        <div className={s.row}>
          <PersonAvatar person={PEOPLE[0]} showName />
          <PersonAvatarGroup people={PEOPLE} max={5} />
        </div>
        <Text className={s.label}>Labels</Text>
        <LabelChips labels={{ app: 'checkout', team: 'payments', env: 'prod', region: 'eu-west-1', tier: 'backend', 'app.kubernetes.io/managed-by': 'helm' }} limit={3} />
        <Text className={s.label}>Uptime bar</Text>
        <div className={s.bars}>
          <UptimeBar percent={42} label="42 percent" />
          <UptimeBar percent={80} label="80 percent" />
          <UptimeBar percent={96.5} label="96.5 percent" />
        </div>
        <Text className={s.label}>Formats</Text>
        <div className={s.row}>
          <span className={s.mono}>{formatAge(NOW - 5 * 60_000, NOW)}</span>
          <span className={s.mono}>{formatDuration(850)}</span>
          <span className={s.mono}>{formatDuration(12_500)}</span>
          <span className={s.mono}>{formatDuration(330_000)}</span>
          <span className={s.mono}>{formatDuration(7_500_000)}</span>
          <span className={s.mono}>{formatPercent(99.956)}</span>
          <span className={s.mono}>{formatCurrency(18.5)}</span>
          <span className={s.mono}>{formatCurrency(4_321)}</span>
        </div>
      </div>
    </GallerySection>
  );
}
