import { z } from 'zod';

/** The `sql` action's block (issue 14). STUB: the actions part fills in the fields, with their checks. */
export const SqlAction = z.object({}).loose();
export type SqlAction = z.infer<typeof SqlAction>;
