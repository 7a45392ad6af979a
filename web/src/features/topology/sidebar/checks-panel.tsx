import { Link as RouterLink } from 'wouter';
import { Link, makeStyles, Text, tokens } from '@fluentui/react-components';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { useComponentChecks } from '../api-sidebar';
import { PanelList } from './panel-list';
import type { PanelContext } from './panel';

const useStyles = makeStyles({
  name: { flexGrow: 1, minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  type: { color: tokens.colorNeutralForeground3 },
});

export function useChecksCount(ctx: PanelContext): number | undefined {
  return useComponentChecks(ctx.componentId, { refetchInterval: ctx.refetchInterval }).data?.length;
}

/** Checks: the linked health checks; a click opens the check's drawer on the health page (its `checkId`). */
export function ChecksPanel({ ctx }: { ctx: PanelContext }) {
  const s = useStyles();
  const q = useComponentChecks(ctx.componentId, { refetchInterval: ctx.refetchInterval });
  return (
    <PanelList
      label="Checks"
      query={q}
      empty="No linked checks"
      rowKey={(c) => c.id}
      row={(c) => (
        <>
          <HealthIndicator health={c.status} size="small" />
          <RouterLink href={`/health?checkId=${encodeURIComponent(c.id)}`} asChild>
            <Link className={s.name}>{c.name}</Link>
          </RouterLink>
          <Text size={200} className={s.type}>{c.type}</Text>
        </>
      )}
    />
  );
}
