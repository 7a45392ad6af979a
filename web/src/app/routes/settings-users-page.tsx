import { UsersSettings } from '../../features/users/components/users-settings';
import { useSession } from '../session-context';

/** /settings/users */
export function SettingsUsersPage() {
  const session = useSession();
  return <UsersSettings canWrite={session.can('identities', 'write')} currentUserId={session.user.id} />;
}
