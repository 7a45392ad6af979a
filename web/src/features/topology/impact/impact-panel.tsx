import { makeStyles, Skeleton, SkeletonItem, Text, tokens } from '@fluentui/react-components';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { RouteLink } from '../../../components/route-link';
import { pathTo, paths } from '../../../app/paths';
import { useComponentImpact, type ImpactComponent } from '../api-extra';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  heading: { fontWeight: tokens.fontWeightSemibold, color: tokens.colorNeutralForeground2, margin: 0 },
  list: { listStyle: 'none', margin: 0, padding: 0, display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXS },
  row: { display: 'grid', gridTemplateColumns: 'auto 1fr auto', alignItems: 'center', columnGap: tokens.spacingHorizontalS, minWidth: 0 },
  name: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  meta: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200, gridColumn: '2 / 4' },
  note: { color: tokens.colorNeutralForeground3 },
});

/** "parent of api" / "selects db": how the walk reached it, named by the component it came from. */
function viaText(c: ImpactComponent, names: ReadonlyMap<string, string>): string {
  const from = names.get(c.via.id) ?? 'this component';
  return c.via.relation === 'parent' ? `parent of ${from}` : `selects ${from}`;
}

function DependentRow({ c, names }: { c: ImpactComponent; names: ReadonlyMap<string, string> }) {
  const s = useStyles();
  return (
    <li className={s.row} data-testid="impact-component">
      <HealthIndicator health={c.status ?? 'unknown'} />
      <RouteLink className={s.name} href={pathTo(paths.topologyDetail, { id: c.id })}>{c.name}</RouteLink>
      <Text size={200} className={s.note}>{c.type ?? ''}</Text>
      <span className={s.meta}>{viaText(c, names)}</span>
    </li>
  );
}

/**
 * What depends on the component, transitively (its ancestors, and whoever selected it or them: the server's walk),
 * each linked to its page, and the teams owning it or them.
 */
export function ImpactPanel({ componentId }: { componentId: string }) {
  const s = useStyles();
  const impact = useComponentImpact(componentId);
  if (impact.isPending) return <Skeleton aria-label="Loading impact"><SkeletonItem /><SkeletonItem /></Skeleton>;
  if (impact.isError) return <Text role="alert" className={s.note}>Impact could not be loaded: {impact.error.message}</Text>;
  const { components, teams, checks, configs, truncated } = impact.data;
  const names = new Map(components.map((c) => [c.id, c.name]));
  if (!components.length && !teams.length) return <Text className={s.note} role="status">Nothing depends on this component</Text>;
  return (
    <div className={s.root} data-testid="impact-panel">
      <section aria-labelledby={`impact-deps-${componentId}`}>
        <h3 id={`impact-deps-${componentId}`} className={s.heading}>Dependents ({components.length}{truncated ? '+' : ''})</h3>
        {components.length ? (
          <ul className={s.list}>{components.map((c) => <DependentRow key={c.id} c={c} names={names} />)}</ul>
        ) : (
          <Text className={s.note}>Nothing depends on this component</Text>
        )}
        {truncated && <Text size={200} className={s.note}>Only the first {components.length} are listed.</Text>}
        {checks.length + configs.length > 0 && (
          <Text size={200} className={s.note}>
            {checks.length} checks and {configs.length} catalog items are linked to them.
          </Text>
        )}
      </section>
      {teams.length > 0 && (
        <section aria-labelledby={`impact-teams-${componentId}`}>
          <h3 id={`impact-teams-${componentId}`} className={s.heading}>Teams</h3>
          <ul className={s.list}>
            {teams.map((t) => (
              <li key={t.id}>
                <RouteLink href={`/settings/teams/${encodeURIComponent(t.id)}`}>{t.name}</RouteLink>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
