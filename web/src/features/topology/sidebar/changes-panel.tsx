import { makeStyles, Text, tokens } from '@fluentui/react-components';
import { Link as RouterLink } from 'wouter';
import { Link } from '@fluentui/react-components';
import { Age } from '../../../components/status/age';
import { SeverityBadge } from '../../../components/status/status-badge';
import { useComponentChanges, useComponentConfigs, useLinkedConfigIds, visibleConfigs } from '../api-sidebar';
import { PanelList } from './panel-list';
import type { PanelContext } from './panel';

const useStyles = makeStyles({
  text: { flexGrow: 1, minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  age: { color: tokens.colorNeutralForeground3, whiteSpace: 'nowrap' },
});

function useChanges(ctx: PanelContext) {
  const o = { refetchInterval: ctx.refetchInterval };
  const { ids } = useLinkedConfigIds(ctx.componentId, o);
  return useComponentChanges(ctx.componentId, ids, o);
}

export function useChangesCount(ctx: PanelContext): number | undefined {
  return useChanges(ctx).data?.length;
}

/** Changes: the latest changes of the linked catalog items, newest first. */
export function ChangesPanel({ ctx }: { ctx: PanelContext }) {
  const s = useStyles();
  const q = useChanges(ctx);
  const links = useComponentConfigs(ctx.componentId, { refetchInterval: ctx.refetchInterval });
  const names = new Map(visibleConfigs(links.data ?? [], true).map((l) => [l.config_id, l.configs?.name ?? '']));
  return (
    <PanelList
      label="Changes"
      query={q}
      empty="No changes"
      rowKey={(c) => c.id}
      row={(c) => (
        <>
          {c.severity && <SeverityBadge severity={c.severity} />}
          <RouterLink href={`/catalog/${c.config_id}/changes`} asChild>
            <Link className={s.text}>{`${names.get(c.config_id) || 'Item'}: ${c.change_type ?? 'change'}${c.summary ? ` — ${c.summary}` : ''}`}</Link>
          </RouterLink>
          <Text size={200} className={s.age}><Age value={c.created_at} /></Text>
        </>
      )}
    />
  );
}
