import { z } from 'zod';

/** The `logs` action's block (issue 14). STUB: the actions part fills in the fields, with their checks. */
export const LogsAction = z.object({}).loose();
export type LogsAction = z.infer<typeof LogsAction>;
