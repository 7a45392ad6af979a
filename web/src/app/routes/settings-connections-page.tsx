import { ConnectionsSettings } from '../../features/connections/components/connections-settings';
import { useSession } from '../session-context';

/** /settings/connections */
export function SettingsConnectionsPage() {
  const session = useSession();
  return <ConnectionsSettings canWrite={session.can('connections', 'write')} currentUserId={session.user.id} />;
}
