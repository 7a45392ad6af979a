import type { RoutePage } from './route-group';

/** The notifications' pages (and the Event Queue settings page), one route module: their chunks stay out of start-up. */
export const NOTIFICATIONS_PAGES = {
  NotificationsPage: () => import('./notifications-page').then((m) => m.NotificationsPage),
  EventQueuePage: () => import('./event-queue-page').then((m) => m.EventQueuePage),
} satisfies Record<string, () => Promise<RoutePage>>;
