import { useMemo } from 'react';
import { TopologyPage } from '../../features/topology/components/topology-page';
import { TopologyViewPage } from '../../features/topology/components/topology-view-page';
import { useSession } from '../session-context';

type Params = { params: Record<string, string | undefined> };

/** /topology and /topology/{id}: what this user may do from a card, as the server decides it. */
export function TopologyRoutePage({ params }: Params) {
  const session = useSession();
  const can = useMemo(() => ({
    logs: session.enabled('logs'),
    write: session.can('topologies', 'write'),
    incidents: session.can('incident', 'write') && session.enabled('incidents'),
    currentUserId: session.user.id,
  }), [session]);
  return <TopologyPage key={params.id ?? ''} id={params.id} can={can} incidentsEnabled={session.enabled('incidents')} />;
}

/** /view/topology/{id} */
export function TopologyViewRoutePage({ params }: Params) {
  return <TopologyViewPage id={params.id ?? ''} />;
}
