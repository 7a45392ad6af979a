import { useState } from 'react';
import { Link as RouterLink } from 'wouter';
import { Button, Link, makeStyles, mergeClasses, Switch, Text, tokens } from '@fluentui/react-components';
import { Delete16Regular } from '@fluentui/react-icons';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { errorMessage } from '../../../lib/api-client';
import { toast } from '../../../lib/toast';
import { useComponentConfigs, useUnlinkConfig, visibleConfigs, type LinkedConfig } from '../api-sidebar';
import { PanelList } from './panel-list';
import type { PanelContext } from './panel';

const useStyles = makeStyles({
  name: { flexGrow: 1, minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  type: { color: tokens.colorNeutralForeground3, whiteSpace: 'nowrap' },
  deleted: { textDecorationLine: 'line-through' },
});

export function useCatalogCount(ctx: PanelContext): number | undefined {
  const q = useComponentConfigs(ctx.componentId, { refetchInterval: ctx.refetchInterval });
  return q.data ? visibleConfigs(q.data, false).length : undefined;
}

/** Catalog: the configs linked to the component; a link made by hand can be deleted by writers. */
export function CatalogPanel({ ctx }: { ctx: PanelContext }) {
  const s = useStyles();
  const [showDeleted, setShowDeleted] = useState(false);
  const q = useComponentConfigs(ctx.componentId, { refetchInterval: ctx.refetchInterval });
  const unlink = useUnlinkConfig(ctx.componentId);
  const rows = { ...q, data: q.data ? visibleConfigs(q.data, showDeleted) : undefined };
  const remove = (l: LinkedConfig) =>
    unlink.mutate(l.config_id, {
      onSuccess: () => toast.success('Deleted config link successfully'),
      onError: (err) => toast.error(errorMessage(err)),
    });
  return (
    <>
      <Switch label="Show deleted" checked={showDeleted} onChange={(_, d) => setShowDeleted(d.checked)} />
      <PanelList
        label="Linked catalog items"
        query={rows}
        empty="No linked catalog items"
        rowKey={(l) => l.config_id}
        row={(l) => (
          <>
            <HealthIndicator health={l.configs?.health} size="small" />
            <RouterLink href={`/catalog/${l.config_id}`} asChild>
              <Link className={mergeClasses(s.name, l.configs?.deleted_at ? s.deleted : undefined)}>{l.configs?.name ?? l.config_id}</Link>
            </RouterLink>
            <Text size={200} className={s.type}>{l.configs?.type}</Text>
            {ctx.canWrite && l.selector_id === 'manual' && (
              <Button
                size="small"
                appearance="subtle"
                icon={<Delete16Regular />}
                aria-label={`Delete link to ${l.configs?.name ?? l.config_id}`}
                disabled={unlink.isPending}
                onClick={() => remove(l)}
              />
            )}
          </>
        )}
      />
    </>
  );
}
