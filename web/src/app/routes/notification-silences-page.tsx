import { AddSilenceForm } from '../../features/notifications/silences/add-silence-form';
import { NotificationSilences } from '../../features/notifications/silences/silences-list';
import { paths } from '../paths';
import { useSession } from '../session-context';

/** /notifications/silences */
export function NotificationSilencesPage() {
  const session = useSession();
  return <NotificationSilences canWrite={session.can('notifications', 'write')} addHref={paths.notificationSilenceAdd} />;
}

/** /notifications/silences/add (write on notifications; `?check_id=` and the like prefill the resource) */
export function NotificationSilenceAddPage() {
  return <AddSilenceForm listHref={paths.notificationSilences} />;
}
