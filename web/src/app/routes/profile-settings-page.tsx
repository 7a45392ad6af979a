import { ProfileSettings } from '../../features/profile/components/profile-settings';
import { useSession } from '../session-context';

/** /profile-settings: Your Profile. */
export function ProfileSettingsPage() {
  const session = useSession();
  return <ProfileSettings user={session.user} />;
}
