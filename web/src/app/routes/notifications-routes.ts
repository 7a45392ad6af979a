import type { RoutePage } from './route-group';

/** The notifications' pages (and the Event Queue settings page), one route module: their chunks stay out of start-up. */
export const NOTIFICATIONS_PAGES = {
  NotificationsPage: () => import('./notifications-page').then((m) => m.NotificationsPage),
  EventQueuePage: () => import('./event-queue-page').then((m) => m.EventQueuePage),
  NotificationRulesPage: () => import('./notification-rules-page').then((m) => m.NotificationRulesPage),
  NotificationSilencesPage: () => import('./notification-silences-page').then((m) => m.NotificationSilencesPage),
  NotificationSilenceAddPage: () => import('./notification-silences-page').then((m) => m.NotificationSilenceAddPage),
} satisfies Record<string, () => Promise<RoutePage>>;
