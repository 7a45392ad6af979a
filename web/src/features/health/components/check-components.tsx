import { Link as RouterLink } from 'wouter';
import { Link, makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { Link24Regular } from '@fluentui/react-icons';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { EmptyState } from '../../../components/empty-state';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { api, errorMessage } from '../../../lib/api-client';

const LinkedComponent = z.object({
  component_id: z.string(),
  components: z.object({ id: z.string(), name: z.string(), type: z.string().nullish(), status: z.string().nullish(), deleted_at: z.string().nullish() }).nullish(),
});

/** The check's live links to topology components (check_component_relationships), once each. */
export function useCheckComponents(checkId: string) {
  return useQuery({
    queryKey: ['db', 'check_component_relationships', 'check', checkId],
    queryFn: ({ signal }) =>
      api.get('/api/db/check_component_relationships', {
        query: { check_id: `eq.${checkId}`, deleted_at: 'is.null', select: 'component_id,components(id,name,type,status,deleted_at)' },
        schema: z.array(LinkedComponent),
        signal,
      }),
    select: (rows) => [...new Map(rows.filter((r) => r.components && !r.components.deleted_at).map((r) => [r.component_id, r.components!])).values()],
  });
}

const useStyles = makeStyles({
  list: { listStyle: 'none', margin: 0, padding: 0, display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS },
  row: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS },
  type: { color: tokens.colorNeutralForeground3 },
});

/** The Relationships tab: the components the check is linked to, each to its topology page. */
export function CheckComponents({ checkId }: { checkId: string }) {
  const s = useStyles();
  const q = useCheckComponents(checkId);
  if (q.isError) return <Text role="alert">{errorMessage(q.error)}</Text>;
  if (!q.data) return <Spinner size="small" label="Loading relationships…" />;
  if (!q.data.length) {
    return <EmptyState icon={<Link24Regular />} title="No relationships" description="Components linked to this check will show here." />;
  }
  return (
    <ul className={s.list} aria-label="Linked components">
      {q.data.map((c) => (
        <li key={c.id} className={s.row}>
          <HealthIndicator health={c.status} size="small" />
          <RouterLink href={`/topology/${c.id}`} asChild>
            <Link>{c.name}</Link>
          </RouterLink>
          {c.type && <Text size={200} className={s.type}>{c.type}</Text>}
        </li>
      ))}
    </ul>
  );
}
