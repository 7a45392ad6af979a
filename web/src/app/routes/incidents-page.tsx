import { IncidentDetail } from '../../features/incidents/components/incident-detail';
import { IncidentList } from '../../features/incidents/components/incident-list';
import { pathTo, paths } from '../paths';
import { useSession } from '../session-context';

const incidentHref = (id: string) => pathTo(paths.incident, { id });

/** /incidents */
export function IncidentsPage() {
  const session = useSession();
  return <IncidentList canCreate={session.can('incident', 'write')} currentUserId={session.user.id} incidentHref={incidentHref} />;
}

/** /incidents/{id} */
export function IncidentPage({ params }: { params: Record<string, string | undefined> }) {
  const session = useSession();
  const { id, name, avatar } = session.user;
  return (
    <IncidentDetail
      id={params.id ?? ''}
      // the page writes incidents, hypotheses, evidences, comments and responders: commanders and responders can
      canWrite={session.can('incident', 'write')}
      currentUser={{ id, name, avatar: avatar ?? null }}
      incidentsHref={paths.incidents}
    />
  );
}
