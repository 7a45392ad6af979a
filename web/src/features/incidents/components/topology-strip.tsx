import { Badge, makeStyles, Text, tokens } from '@fluentui/react-components';
import { Organization16Regular } from '@fluentui/react-icons';
import { Link as RouterLink } from 'wouter';
import type { Incident } from '../api';

const useStyles = makeStyles({
  root: {
    display: 'flex',
    alignItems: 'center',
    gap: tokens.spacingHorizontalM,
    padding: `${tokens.spacingVerticalS} ${tokens.spacingHorizontalM}`,
    marginBottom: tokens.spacingVerticalM,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusLarge,
    backgroundColor: tokens.colorNeutralBackground2,
    overflowX: 'auto',
  },
  label: { color: tokens.colorNeutralForeground3, whiteSpace: 'nowrap', fontWeight: tokens.fontWeightSemibold },
  list: { display: 'flex', gap: tokens.spacingHorizontalS, listStyle: 'none', margin: 0, padding: 0 },
  // the badge is the link's face: no underline, the focus ring on the link
  link: { textDecorationLine: 'none', borderRadius: tokens.borderRadiusMedium },
});

/** The components named by the incident's topology evidence, once each. */
export function topologyComponents(incident: Incident): { id: string; name: string; linked: boolean }[] {
  const seen = new Map<string, string>();
  const linked = new Set<string>();
  for (const h of incident.hypotheses) {
    for (const e of h.evidences) {
      if (e.type !== 'topology') continue;
      const name = typeof e.evidence?.name === 'string' ? e.evidence.name : e.description || 'Component';
      const id = e.component_id ?? name;
      if (!seen.has(id)) seen.set(id, name);
      // only a component the evidence names by id has a topology page to open
      if (e.component_id) linked.add(e.component_id);
    }
  }
  return [...seen].map(([id, name]) => ({ id, name, linked: linked.has(id) }));
}

/** A strip of the topology components involved, shown only when there is topology evidence. */
export function TopologyStrip({ incident }: { incident: Incident }) {
  const s = useStyles();
  const components = topologyComponents(incident);
  if (!components.length) return null;
  return (
    <section className={s.root} aria-label="Affected components">
      <Text size={200} className={s.label}>Components</Text>
      <ul className={s.list} aria-label="Components">
        {components.map((c) => (
          <li key={c.id}>
            {c.linked ? (
              <RouterLink href={`/topology/${c.id}`} asChild>
                <a className={s.link} aria-label={`Component ${c.name}`}>
                  <Badge size="large" appearance="tint" color="brand" shape="rounded" icon={<Organization16Regular />}>{c.name}</Badge>
                </a>
              </RouterLink>
            ) : (
              <Badge size="large" appearance="tint" color="brand" shape="rounded" icon={<Organization16Regular />}>{c.name}</Badge>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
