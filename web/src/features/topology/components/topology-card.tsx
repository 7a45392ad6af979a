import { memo, useMemo, type MouseEvent } from 'react';
import { makeStyles, mergeClasses, tokens } from '@fluentui/react-components';
import type { TopologyComponent } from '@contracts/topology';
import { RouteLink } from '../../../components/route-link';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { borderColor, cardProperties, cardSize } from '../model';
import { CardMenu, type CardAbilities } from './card-menu';
import { CardMetrics, CardProperties } from './card-properties';
import { CardStatuses } from './card-statuses';
import { ComponentIcon } from './component-icon';
import { AgentBadge } from '../../health/components/check-name';

const useStyles = makeStyles({
  card: {
    boxSizing: 'border-box', display: 'flex', flexDirection: 'column', minWidth: 0,
    borderRadius: tokens.borderRadiusLarge, backgroundColor: tokens.colorNeutralBackground2,
    boxShadow: tokens.shadow4, borderTop: `6px solid ${tokens.colorNeutralBackground1}`, overflow: 'hidden',
    outline: '2px solid transparent', transitionProperty: 'box-shadow, outline-color', transitionDuration: tokens.durationFast,
    ':hover': { boxShadow: tokens.shadow8 },
  },
  red: { borderTopColor: tokens.colorPaletteRedBorderActive },
  orange: { borderTopColor: tokens.colorPaletteDarkOrangeBorderActive },
  selected: { outlineColor: tokens.colorBrandStroke1 },
  hiddenCard: { opacity: 0.7 },
  head: {
    display: 'flex', alignItems: 'flex-start', gap: tokens.spacingHorizontalS, padding: `10px ${tokens.spacingHorizontalS} 10px ${tokens.spacingHorizontalM}`,
    backgroundColor: tokens.colorNeutralBackground1, borderBottom: `1px solid ${tokens.colorNeutralStroke2}`,
  },
  icon: { paddingTop: '3px', color: tokens.colorNeutralForeground2, '& svg': { width: '24px', height: '24px' } },
  title: { flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column', gap: '2px' },
  name: {
    margin: 0, fontSize: tokens.fontSizeBase400, fontWeight: tokens.fontWeightSemibold, lineHeight: tokens.lineHeightBase400,
    overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap',
  },
  nameLink: { color: tokens.colorNeutralForeground1, fontWeight: tokens.fontWeightSemibold },
  sub: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0, color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200 },
  reason: { flex: 1, minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  type: { whiteSpace: 'nowrap' },
  headMetrics: { flexShrink: 0, paddingTop: '2px' },
  body: { display: 'flex', gap: tokens.spacingHorizontalL, padding: `${tokens.spacingVerticalS} ${tokens.spacingHorizontalM}`, minWidth: 0 },
  col: { flex: 1, minWidth: 0 },
  footMetrics: { padding: `${tokens.spacingVerticalS} ${tokens.spacingHorizontalM}`, display: 'flex', justifyContent: 'center' },
});

export interface TopologyCardProps {
  component: TopologyComponent;
  width: number;
  /** Where the name and "more components" lead (the zoomed view, query kept). */
  zoomHref: string;
  selected?: boolean;
  onSelect?: (id: string) => void;
  /** Without it the card has no menu (the embedded view). */
  can?: CardAbilities;
}

/** A click on the card's background selects it; links, buttons and the menu keep their own meaning. */
function selectHandler(id: string, onSelect?: (id: string) => void) {
  if (!onSelect) return undefined;
  return (e: MouseEvent) => {
    // React bubbles clicks through portals: a click in a dialog's popped-out list opened from this card is not a click
    // on the card
    if (!(e.currentTarget as Element).contains(e.target as Node)) return;
    if ((e.target as Element).closest('a,button,input,[role="menuitem"],[role="dialog"]')) return;
    onSelect(id);
  };
}

/** A component's card (spec 001 §2): icon, name, status reason, headline metrics, properties, status lines, menu. */
export const TopologyCard = memo(function TopologyCard({ component: c, width, zoomHref, selected, onSelect, can }: TopologyCardProps) {
  const s = useStyles();
  const size = cardSize(width);
  const { headline, rest } = useMemo(() => cardProperties(c), [c]);
  const compact = size === 'small' || size === 'medium';
  const border = borderColor(c);
  const body = compact ? null : (
    <>
      {rest.length > 0 && <div className={s.col}><CardProperties items={rest} /></div>}
      <div className={s.col}><CardStatuses component={c} zoomHref={zoomHref} /></div>
    </>
  );
  const hasBody = compact ? headline.length > 0 : rest.length > 0 || hasStatuses(c);
  return (
    <article
      className={mergeClasses(s.card, border && s[border], selected && s.selected, c.hidden && s.hiddenCard)}
      style={{ width }}
      aria-label={c.text || c.name}
      aria-current={selected ? 'true' : undefined}
      data-health={border ?? 'none'}
      data-component-id={c.id}
      onClick={selectHandler(c.id, onSelect)}
    >
      <div className={s.head}>
        <span className={s.icon}><ComponentIcon icon={c.icon} type={c.type} /></span>
        <div className={s.title}>
          <h3 className={s.name} title={c.name}>
            <RouteLink href={zoomHref} className={s.nameLink}>{c.text || c.name}</RouteLink>
          </h3>
          <div className={s.sub}>
            <HealthIndicator health={c.status} size="small" />
            {c.type && <span className={s.type}>{c.type}</span>}
            {c.status_reason && <span className={s.reason} title={c.status_reason}>{c.status_reason}</span>}
            <AgentBadge agentId={c.agent_id} />
          </div>
        </div>
        {!compact && headline.length > 0 && <div className={s.headMetrics}><CardMetrics items={headline} /></div>}
        {can && <CardMenu component={c} can={can} />}
      </div>
      {hasBody && (compact ? <div className={s.footMetrics}><CardMetrics items={headline} /></div> : <div className={s.body}>{body}</div>)}
    </article>
  );
});

function hasStatuses(c: TopologyComponent): boolean {
  const sum = c.summary ?? {};
  return Boolean((c.components ?? []).length || Object.keys(sum.checks ?? {}).length || Object.keys(sum.incidents ?? {}).length || Object.keys(sum.insights ?? {}).length);
}
