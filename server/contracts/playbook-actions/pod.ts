import { z } from 'zod';

/** The `pod` action's block (issue 14). STUB: the actions part fills in the fields, with their checks. */
export const PodAction = z.object({}).loose();
export type PodAction = z.infer<typeof PodAction>;
