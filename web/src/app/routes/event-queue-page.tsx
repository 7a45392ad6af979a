/** /settings/event-queue-status */
export function EventQueuePage() {
  return <div />;
}
