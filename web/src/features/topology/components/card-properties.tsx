import { useState } from 'react';
import { Link, makeStyles, mergeClasses, tokens } from '@fluentui/react-components';
import { PROPERTIES_SHOWN, type ShownProperty } from '../model';

const useStyles = makeStyles({
  metrics: { display: 'flex', gap: tokens.spacingHorizontalL, flexWrap: 'wrap', justifyContent: 'flex-end' },
  metric: { display: 'flex', flexDirection: 'column', alignItems: 'center', minWidth: '48px', gap: '2px' },
  metricLabel: { fontSize: tokens.fontSizeBase100, color: tokens.colorNeutralForeground3, textTransform: 'uppercase', letterSpacing: '0.04em' },
  metricValue: { fontSize: tokens.fontSizeBase300, fontWeight: tokens.fontWeightSemibold, whiteSpace: 'nowrap' },
  list: { display: 'grid', gridTemplateColumns: 'minmax(64px, max-content) minmax(0, 1fr)', columnGap: tokens.spacingHorizontalM, rowGap: '3px', alignItems: 'center', margin: 0 },
  name: { fontSize: tokens.fontSizeBase200, color: tokens.colorNeutralForeground3, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  value: { fontSize: tokens.fontSizeBase200, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', margin: 0 },
  high: { color: tokens.colorPaletteDarkOrangeForeground1 },
  bar: { height: '4px', width: '48px', borderRadius: '2px', backgroundColor: tokens.colorNeutralBackground5, overflow: 'hidden' },
  fill: { height: '100%', backgroundColor: tokens.colorBrandBackground },
  fillHigh: { backgroundColor: tokens.colorPaletteDarkOrangeBackground3 },
  more: { fontSize: tokens.fontSizeBase200, marginTop: '2px' },
});

/** A value with a max as a short bar, orange above 70 % (the reference's gauge). */
function Bar({ p }: { p: ShownProperty }) {
  const s = useStyles();
  return (
    <span className={s.bar} role="meter" aria-valuenow={Math.round(p.percent ?? 0)} aria-valuemin={0} aria-valuemax={100} aria-label={`${p.label} ${p.title ?? ''}`}>
      <span className={mergeClasses(s.fill, p.high && s.fillHigh)} style={{ display: 'block', width: `${p.percent ?? 0}%` }} />
    </span>
  );
}

function Value({ p }: { p: ShownProperty }) {
  const s = useStyles();
  if (p.url) {
    return (
      <Link href={p.url} target="_blank" rel="noreferrer" className={s.value} title={p.title}>
        {p.text}
      </Link>
    );
  }
  return (
    <span className={mergeClasses(s.value, p.high && s.high)} title={p.title}>
      {p.text}
    </span>
  );
}

/** The headline properties: label over value (small cards put them in the footer, larger ones beside the name). */
export function CardMetrics({ items }: { items: ShownProperty[] }) {
  const s = useStyles();
  if (!items.length) return null;
  return (
    <div className={s.metrics}>
      {items.map((p, i) => (
        <div key={`${p.label}-${i}`} className={s.metric}>
          <span className={s.metricLabel}>{p.label}</span>
          {p.percent !== undefined ? (
            <>
              <span className={mergeClasses(s.metricValue, p.high && s.high)} title={p.title}>{Math.round(p.percent)}%</span>
              <Bar p={p} />
            </>
          ) : (
            <span className={s.metricValue}><Value p={p} /></span>
          )}
        </div>
      ))}
    </div>
  );
}

/** The other properties, name and value, the first six and a "more" toggle for the rest. */
export function CardProperties({ items }: { items: ShownProperty[] }) {
  const s = useStyles();
  const [open, setOpen] = useState(false);
  if (!items.length) return null;
  const shown = open ? items : items.slice(0, PROPERTIES_SHOWN);
  return (
    <div>
    <dl className={s.list}>
      {shown.map((p, i) => (
        <div key={`${p.label}-${i}`} style={{ display: 'contents' }}>
          <dt className={s.name} title={p.label}>{p.label}</dt>
          <dd className={s.value}>
            {p.percent !== undefined ? (
              <span style={{ display: 'inline-flex', alignItems: 'center', gap: '6px' }}>
                <Bar p={p} />
                <Value p={p} />
              </span>
            ) : (
              <Value p={p} />
            )}
          </dd>
        </div>
      ))}
    </dl>
      {items.length > PROPERTIES_SHOWN && (
        <Link as="button" className={s.more} onClick={(e) => { e.stopPropagation(); setOpen(!open); }}>
          {open ? 'Show less' : `Show ${items.length - PROPERTIES_SHOWN} more`}
        </Link>
      )}
    </div>
  );
}
