import { SendHistory } from '../../features/notifications/history/send-history';

/** /notifications: the send history. */
export function NotificationsPage() {
  return <SendHistory />;
}
