import { z } from 'zod';

/** The `exec` action's block (issue 14). STUB: the actions part fills in the fields, with their checks. */
export const ExecAction = z.object({}).loose();
export type ExecAction = z.infer<typeof ExecAction>;
