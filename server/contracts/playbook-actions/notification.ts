import { z } from 'zod';

/** The `notification` action's block (issue 14). STUB: the actions part fills in the fields, with their checks. */
export const NotificationAction = z.object({}).loose();
export type NotificationAction = z.infer<typeof NotificationAction>;
