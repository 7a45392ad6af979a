import { Link as RouterLink } from 'wouter';
import { Link, makeStyles, Text, tokens } from '@fluentui/react-components';
import { SeverityBadge } from '../../../components/status/status-badge';
import { useComponentIncidents } from '../api-sidebar';
import { PanelList } from './panel-list';
import type { PanelContext } from './panel';

const useStyles = makeStyles({
  title: { flexGrow: 1, minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  status: { color: tokens.colorNeutralForeground3, textTransform: 'capitalize' },
});

export function useIncidentsCount(ctx: PanelContext): number | undefined {
  return useComponentIncidents(ctx.componentId, { refetchInterval: ctx.refetchInterval }).data?.length;
}

/** Incidents: those whose evidence names the component. */
export function IncidentsPanel({ ctx }: { ctx: PanelContext }) {
  const s = useStyles();
  const q = useComponentIncidents(ctx.componentId, { refetchInterval: ctx.refetchInterval });
  return (
    <PanelList
      label="Incidents"
      query={q}
      empty="No incidents"
      rowKey={(i) => i.id}
      row={(i) => (
        <>
          {i.severity && <SeverityBadge severity={i.severity} />}
          <RouterLink href={`/incidents/${i.id}`} asChild>
            <Link className={s.title}>{`${i.incident_id} ${i.title}`}</Link>
          </RouterLink>
          <Text size={200} className={s.status}>{i.status}</Text>
        </>
      )}
    />
  );
}
