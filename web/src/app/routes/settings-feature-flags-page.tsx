import { FeatureFlagsSettings } from '../../features/feature-flags/components/feature-flags-settings';
import { useSession } from '../session-context';

/** /settings/feature-flags */
export function SettingsFeatureFlagsPage() {
  const session = useSession();
  return <FeatureFlagsSettings canWrite={session.can('feature_flags', 'write')} currentUserId={session.user.id} />;
}
