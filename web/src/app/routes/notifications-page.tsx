/** /notifications: the send history. */
export function NotificationsPage() {
  return <div />;
}
