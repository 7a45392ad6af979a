import { z } from 'zod';

/** The `http` action's block (issue 14). STUB: the actions part fills in the fields, with their checks. */
export const HttpAction = z.object({}).loose();
export type HttpAction = z.infer<typeof HttpAction>;
