import { NotificationRules } from '../../features/notifications/rules/rules-list';
import { useSession } from '../session-context';

/** /notifications/rules (`?id=` opens a rule) */
export function NotificationRulesPage() {
  const session = useSession();
  return <NotificationRules canWrite={session.can('notifications', 'write')} currentUserId={session.user.id} />;
}
