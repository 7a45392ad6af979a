import { z } from 'zod';
import { NumberOrTemplate, templatedString } from './env-var.js';

/** A container of the PodSpec: the fields the API server insists on; the rest is passed as written. */
const Container = z.object({ name: z.string().min(1), image: z.string().min(1) }).loose();

/**
 * The `pod` action's block (issue 14): a pod from `spec` (a PodSpec) in the console's cluster, its log streamed to the
 * run, `{logs}` (the last `maxLength` characters, 3000 by default) as the result; deleted at the end, on cancel and on
 * timeout.
 */
export const PodAction = z.object({
  name: templatedString((v) => /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(v) && v.length <= 40, 'must be a DNS-1123 label of at most 40 characters').optional(),
  spec: z.object({ containers: z.array(Container).min(1, 'at least one container is required') }).loose(),
  maxLength: NumberOrTemplate.optional(),
  artifacts: z.array(z.object({ path: z.string().min(1) }).loose()).optional(),
}).loose();
export type PodAction = z.infer<typeof PodAction>;
