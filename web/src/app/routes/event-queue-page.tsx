import { EventQueueTable } from '../../features/event-queue/event-queue-table';

/** /settings/event-queue-status */
export function EventQueuePage() {
  return <EventQueueTable />;
}
