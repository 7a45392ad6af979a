import { makeStyles, Text, tokens } from '@fluentui/react-components';
import { Age } from '../../../components/status/age';
import { LabelChips } from '../../../components/status/label-chips';
import { HealthHistorySlot } from '../history';
import { useComponentDetails, type ComponentDetails } from '../api-sidebar';
import type { PanelContext } from './panel';

const useStyles = makeStyles({
  grid: { display: 'grid', gridTemplateColumns: 'minmax(96px, auto) 1fr', columnGap: tokens.spacingHorizontalM, rowGap: tokens.spacingVerticalS, margin: 0 },
  term: { color: tokens.colorNeutralForeground3 },
  value: { margin: 0, minWidth: 0, overflowWrap: 'anywhere' },
  pair: { display: 'contents' },
});

type Property = NonNullable<ComponentDetails['properties']>[number];

/** A property as the card shows it: its text, else its value with the unit. */
export function propertyText(p: Property): string {
  if (p.text) return p.text;
  if (p.value === null || p.value === undefined) return '';
  return p.unit ? `${p.value} ${p.unit}` : String(p.value);
}

/** The rows Details shows, in order; empty ones are left out. */
export function detailRows(d: ComponentDetails): { term: string; value: string }[] {
  const rows = [
    { term: 'Type', value: d.type ?? '' },
    { term: 'Owner', value: d.owner ?? '' },
    { term: 'External ID', value: d.external_id ?? '' },
    { term: 'Status reason', value: d.status_reason ?? '' },
    ...(d.properties ?? []).filter((p) => p.name || p.label).map((p) => ({ term: p.label || p.name || '', value: propertyText(p) })),
  ];
  return rows.filter((r) => r.value !== '');
}

/** Details: the component's own facts, read fresh (deep tree nodes carry only some columns). */
export function DetailsPanel({ ctx }: { ctx: PanelContext }) {
  const s = useStyles();
  const q = useComponentDetails(ctx.componentId, { refetchInterval: ctx.refetchInterval });
  const c = ctx.component;
  const d: ComponentDetails = q.data ?? {
    id: c.id, name: c.name, type: c.type, status: c.status, status_reason: c.status_reason, labels: c.labels,
    properties: c.properties as ComponentDetails['properties'], updated_at: c.updated_at, owner: (c.owner as string | undefined) ?? null,
  };
  const labels = d.labels ?? {};
  return (
    <>
      <HealthHistorySlot componentId={ctx.componentId} />
      <dl className={s.grid} aria-label="Details">
        {detailRows(d).map((r) => (
          <div key={r.term} className={s.pair}>
            <dt className={s.term}>{r.term}</dt>
            <dd className={s.value}>{r.value}</dd>
          </div>
        ))}
        {Object.keys(labels).length > 0 && (
          <div className={s.pair}>
            <dt className={s.term}>Labels</dt>
            <dd className={s.value}><LabelChips labels={labels} limit={6} /></dd>
          </div>
        )}
        <div className={s.pair}>
          <dt className={s.term}>Last updated</dt>
          <dd className={s.value}>{d.updated_at ? <Age value={d.updated_at} /> : <Text>—</Text>}</dd>
        </div>
      </dl>
    </>
  );
}
