import type { ReactNode } from 'react';
import { useLocation } from 'wouter';
import { Link, makeStyles, Text, tokens, Tooltip } from '@fluentui/react-components';
import { Warning16Filled } from '@fluentui/react-icons';
import { Age } from '../../../components/status/age';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { formatAge, formatCurrency } from '../../../lib/format';
import type { ConfigDetail } from '../api';
import { groupLabels, scrapeIsStale, showClass } from '../model';

const useStyles = makeStyles({
  root: {
    display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS, minWidth: 0,
    padding: tokens.spacingHorizontalM, borderRadius: tokens.borderRadiusLarge,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`, backgroundColor: tokens.colorNeutralBackground1,
  },
  dl: { display: 'grid', gridTemplateColumns: 'minmax(80px, max-content) 1fr', columnGap: tokens.spacingHorizontalM, rowGap: tokens.spacingVerticalS, margin: 0 },
  dt: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200, overflowWrap: 'anywhere' },
  dd: { margin: 0, minWidth: 0, overflowWrap: 'anywhere', fontSize: tokens.fontSizeBase300, display: 'flex', flexWrap: 'wrap', gap: tokens.spacingHorizontalXS, alignItems: 'center' },
  heading: { fontWeight: tokens.fontWeightSemibold, color: tokens.colorNeutralForeground2, textTransform: 'uppercase', fontSize: tokens.fontSizeBase100, letterSpacing: '0.04em', marginTop: tokens.spacingVerticalS },
  chip: { padding: `0 ${tokens.spacingHorizontalXS}`, borderRadius: tokens.borderRadiusMedium, backgroundColor: tokens.colorNeutralBackground3, fontSize: tokens.fontSizeBase200 },
  muted: { color: tokens.colorNeutralForeground3 },
  warning: { color: tokens.colorStatusWarningForeground1, display: 'inline-flex' },
  description: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200, flexBasis: '100%' },
});

function Row({ label, children }: { label: string; children: ReactNode }) {
  const s = useStyles();
  return (
    <>
      <dt className={s.dt}>{label}</dt>
      <dd className={s.dd}>{children}</dd>
    </>
  );
}

function NavLink({ href, children }: { href: string; children: ReactNode }) {
  const [, navigate] = useLocation();
  return (
    <Link
      href={href}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey) return;
        e.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </Link>
  );
}

const COSTS = [
  ['cost_per_minute', 'per minute'],
  ['cost_total_1d', '1d'],
  ['cost_total_7d', '7d'],
  ['cost_total_30d', '30d'],
] as const;

/** Spec 001 §2 "Detail sidebar rows", in its order; 'Details not found' without an item. */
export function ConfigSidebar({ item, now = Date.now() }: { item: ConfigDetail | null; now?: number }) {
  const s = useStyles();
  if (!item) {
    return (
      <aside className={s.root} aria-label="Details">
        <Text>Details not found</Text>
      </aside>
    );
  }
  const tags = Object.entries(item.tags ?? {}).filter(([, v]) => v !== null && v !== undefined);
  const costs = COSTS.filter(([k]) => (item[k] ?? 0) > 0);
  const stale = scrapeIsStale(item.last_scraped_time, item.deleted_at, now);
  const labels = groupLabels(item.labels);
  return (
    <aside className={s.root} aria-label="Details">
      <dl className={s.dl}>
        <Row label="Name">{item.name ?? item.id}</Row>
        {tags.length > 0 && (
          <Row label="Tags">
            {tags.map(([k, v]) => (
              <span key={k} className={s.chip}>{k}: {String(v)}</span>
            ))}
          </Row>
        )}
        <Row label="Status">
          {item.deleted_at ? (
            <>
              Deleted <span className={s.muted}><Age value={item.deleted_at} now={now} /></span>
            </>
          ) : (
            item.status ?? <span className={s.muted}>—</span>
          )}
        </Row>
        <Row label="Health">
          <HealthIndicator health={item.health} showLabel />
          {item.description && <span className={s.description}>{item.description}</span>}
        </Row>
        <Row label="Created">
          <Age value={item.created_at} now={now} />
          {item.scraper && (
            <>
              <span className={s.muted}>by</span>
              <NavLink href={`/catalog/scrapers/${encodeURIComponent(item.scraper.id)}`}>{item.scraper.name ?? item.scraper.id}</NavLink>
            </>
          )}
        </Row>
        <Row label="Updated">
          <Age value={item.updated_at} now={now} />
          {stale && (
            <Tooltip content={`Last scraped ${formatAge(item.last_scraped_time, now)}`} relationship="description">
              <span className={s.warning} role="img" aria-label={`Last scraped ${formatAge(item.last_scraped_time, now)}`} tabIndex={0}>
                <Warning16Filled />
              </span>
            </Tooltip>
          )}
        </Row>
        <Row label="Type">
          {item.type ? <NavLink href={`/catalog?type=${encodeURIComponent(item.type)}`}>{item.type}</NavLink> : '—'}
        </Row>
        {showClass(item.type, item.config_class) && <Row label="Class">{item.config_class}</Row>}
        {costs.length > 0 && (
          <Row label="Cost">
            {costs.map(([k, label]) => (
              <span key={k} className={s.chip}>{formatCurrency(item[k] ?? null)} {label}</span>
            ))}
          </Row>
        )}
      </dl>
      {labels.map((g) => (
        <div key={g.prefix}>
          <div className={s.heading}>{g.prefix || 'Labels'}</div>
          <dl className={s.dl}>
            {g.rows.map((r) => (
              <Row key={r.name} label={r.name}>{r.value}</Row>
            ))}
          </dl>
        </div>
      ))}
    </aside>
  );
}
