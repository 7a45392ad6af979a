import { z } from 'zod';

/**
 * The `notification` action's block (issue 14): `connection` (`connection://ns/name`, a name or an id) or `url` (any
 * notification service URL the connection form writes: smtp://, slack://, teams://…, or an http(s) webhook receiving
 * `{title, message, …properties}` as JSON), sent through the notification senders (server/modules/notifications/
 * senders). An unknown scheme is refused when the action runs, naming it.
 */
export const NotificationAction = z.object({
  connection: z.string().optional(),
  url: z.string().optional(),
  title: z.string().min(1, 'title is required'),
  message: z.string().optional(),
  properties: z.record(z.string(), z.string()).optional(),
  attachments: z.array(z.object({ name: z.string().optional(), path: z.string().optional(), content: z.string().optional() }).loose()).optional(),
}).loose().refine((a) => !!(a.url || a.connection), { message: 'connection or url is required', path: ['connection'] });
export type NotificationAction = z.infer<typeof NotificationAction>;
