import { LogsPage } from '../../features/logs/logs-page';
import { useSession } from '../session-context';

/** /logs: attaching lines as evidence needs write on incidents and the incidents feature on (spec 000 §6). */
export function LogsRoutePage() {
  const session = useSession();
  return <LogsPage canAttach={session.can('incident', 'write') && session.enabled('incidents')} currentUserId={session.user.id} />;
}
