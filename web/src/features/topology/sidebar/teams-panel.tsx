import { Link as RouterLink } from 'wouter';
import { Link, Text } from '@fluentui/react-components';
import { useComponentTeams } from '../api-sidebar';
import { PanelList } from './panel-list';
import type { PanelContext } from './panel';

export function useTeamsCount(ctx: PanelContext): number | undefined {
  return useComponentTeams(ctx.componentId, { refetchInterval: ctx.refetchInterval }).data?.length;
}

/** Teams: the teams that own the component (team_components), each to its settings page. */
export function TeamsPanel({ ctx }: { ctx: PanelContext }) {
  const q = useComponentTeams(ctx.componentId, { refetchInterval: ctx.refetchInterval });
  return (
    <PanelList
      label="Teams"
      query={q}
      empty="No teams"
      rowKey={(t) => t.team_id}
      row={(t) => (
        <>
          <RouterLink href={`/settings/teams/${t.team_id}`} asChild>
            <Link>{t.teams?.name ?? t.team_id}</Link>
          </RouterLink>
          {t.role && <Text size={200}>{t.role}</Text>}
        </>
      )}
    />
  );
}
