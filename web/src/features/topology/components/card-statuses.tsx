import { useState } from 'react';
import { Link, makeStyles, mergeClasses, tokens } from '@fluentui/react-components';
import { HeartPulse20Regular, Lightbulb20Regular, Warning20Regular } from '@fluentui/react-icons';
import type { TopologyComponent } from '@contracts/topology';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { RouteLink } from '../../../components/route-link';
import { cardLines, type ChipColor, type StatusLine } from '../card-lines';

/** Children past this many collapse behind "N more" (a service with 90 pods should not make a 2,000 px card). */
const CHILDREN_SHOWN = 8;

const CHIP: Record<ChipColor, { backgroundColor: string; color: string }> = {
  red: { backgroundColor: tokens.colorPaletteRedBackground2, color: tokens.colorPaletteRedForeground2 },
  orange: { backgroundColor: tokens.colorPaletteDarkOrangeBackground2, color: tokens.colorPaletteDarkOrangeForeground2 },
  yellow: { backgroundColor: tokens.colorPaletteYellowBackground2, color: tokens.colorPaletteMarigoldForeground2 },
  green: { backgroundColor: tokens.colorPaletteGreenBackground2, color: tokens.colorPaletteGreenForeground2 },
  gray: { backgroundColor: tokens.colorNeutralBackground5, color: tokens.colorNeutralForeground2 },
};

const useStyles = makeStyles({
  list: { listStyle: 'none', margin: 0, padding: 0, display: 'flex', flexDirection: 'column', gap: '3px', minWidth: 0 },
  line: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0, fontSize: tokens.fontSizeBase200 },
  icon: { display: 'inline-flex', color: tokens.colorNeutralForeground3, flexShrink: 0, '& svg': { width: '14px', height: '14px' } },
  name: { flex: 1, minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', fontSize: tokens.fontSizeBase200 },
  chips: { display: 'inline-flex', gap: '3px', flexShrink: 0 },
  chip: {
    minWidth: '18px', padding: '0 5px', borderRadius: tokens.borderRadiusCircular, fontSize: tokens.fontSizeBase100,
    fontWeight: tokens.fontWeightSemibold, lineHeight: '16px', textAlign: 'center', textDecorationLine: 'none',
    ':hover': { textDecorationLine: 'underline' },
  },
  ...Object.fromEntries(Object.entries(CHIP).map(([k, v]) => [`chip_${k}`, v])),
  hidden: { position: 'absolute', width: '1px', height: '1px', overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' },
  more: { fontSize: tokens.fontSizeBase200, alignSelf: 'flex-start' },
});

function LineIcon({ line }: { line: StatusLine }) {
  const s = useStyles();
  if (line.kind === 'child') return <HealthIndicator health={line.health} size="small" />;
  const icon = line.kind === 'checks' ? <HeartPulse20Regular /> : line.kind === 'incident' ? <Warning20Regular /> : <Lightbulb20Regular />;
  return <span className={s.icon} aria-hidden="true">{icon}</span>;
}

function Line({ line }: { line: StatusLine }) {
  const s = useStyles();
  const chipClass = s as unknown as Record<string, string>;
  return (
    <li className={s.line}>
      <LineIcon line={line} />
      <RouteLink href={line.href} className={s.name}>{line.label}</RouteLink>
      <span className={s.chips}>
        {line.chips.map((c) => (
          <RouteLink key={c.href} href={c.href} className={mergeClasses(s.chip, chipClass[`chip_${c.color}`])}>
            {c.count}<span className={s.hidden}>{c.label.slice(String(c.count).length)}</span>
          </RouteLink>
        ))}
      </span>
    </li>
  );
}

/** The card's right column: health checks, incidents, insights, then the children with their health. */
export function CardStatuses({ component, zoomHref }: { component: TopologyComponent; zoomHref: string }) {
  const s = useStyles();
  const [allInsights, setAllInsights] = useState(false);
  const { lines, moreInsights } = cardLines(component, allInsights);
  if (!lines.length) return null;
  const children = lines.filter((l) => l.kind === 'child');
  const others = lines.filter((l) => l.kind !== 'child');
  return (
    <ul className={s.list} aria-label="Status">
      {others.map((l) => <Line key={l.key} line={l} />)}
      {moreInsights > 0 && (
        <li><Link as="button" className={s.more} onClick={() => setAllInsights(true)}>{moreInsights} more insights</Link></li>
      )}
      {children.slice(0, CHILDREN_SHOWN).map((l) => <Line key={l.key} line={l} />)}
      {children.length > CHILDREN_SHOWN && (
        <li><RouteLink href={zoomHref} className={s.more}>{children.length - CHILDREN_SHOWN} more components</RouteLink></li>
      )}
    </ul>
  );
}
