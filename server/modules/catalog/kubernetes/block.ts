import { z } from 'zod';
import { ScrapeEnvVar as EnvVar } from '../../../contracts/catalog.js';

/** A list of name patterns; the reference also takes a single string. */
const Patterns = z.union([z.string().transform((s) => [s]), z.array(z.string())]).optional();

/** `exclusions`: objects to leave out, by name, kind, namespace (globs `a*`, `*a`, `*`, negation `!a`) or labels. */
export const KubernetesExclusions = z.union([
  // the reference's older form: a plain list of kinds
  z.array(z.string()).transform((kind) => ({ kind, name: undefined, namespace: undefined, labels: undefined })),
  z.object({
    name: Patterns,
    kind: Patterns,
    namespace: Patterns,
    labels: z.record(z.string(), z.string()).optional(),
  }).loose(),
]);

/** `relationships[]`: each of kind/name/namespace is a `value`, a `label` of the object, or a CEL `expr` over it. */
const Lookup = z.object({ value: z.string().optional(), label: z.string().optional(), expr: z.string().optional() }).loose();
export const RelationshipTemplate = z.object({ kind: Lookup.optional(), name: Lookup.optional(), namespace: Lookup.optional() }).loose();

/**
 * `event.severityKeywords`: reason patterns per severity. The reference's two keys (`error`, `warn`) map onto the
 * spec's change severities as high and medium; the spec's own five may be used directly.
 */
export const SeverityKeywords = z.object({
  critical: Patterns, high: Patterns, medium: Patterns, low: Patterns, info: Patterns,
  error: Patterns, warn: Patterns,
}).loose();

export const KubernetesBlock = z.object({
  clusterName: z.string().optional(),
  namespace: z.string().optional(),
  /** A label selector every list is made with. */
  selector: z.string().optional(),
  fieldSelector: z.string().optional(),
  /** Another cluster: a kubeconfig's text, or a path to one (starting with `/`), as an EnvVar. */
  kubeconfig: EnvVar.optional(),
  exclusions: KubernetesExclusions.optional(),
  event: z.object({
    exclusions: z.union([
      z.array(z.string()).transform((reason) => ({ reason, name: undefined, namespace: undefined })),
      z.object({ name: Patterns, namespace: Patterns, reason: Patterns }).loose(),
    ]).optional(),
    severityKeywords: SeverityKeywords.optional(),
  }).loose().optional(),
  relationships: z.array(RelationshipTemplate).optional(),
}).loose();
export type KubernetesBlock = z.infer<typeof KubernetesBlock>;
export type KubernetesExclusions = z.infer<typeof KubernetesExclusions>;

/** The cluster name when the block gives none. */
export const DEFAULT_CLUSTER_NAME = 'kubernetes';

/** Parses a block; throws an Error naming the first bad path (`exclusions.kind: ...`). */
export function parseBlock(block: Record<string, unknown>): KubernetesBlock {
  const r = KubernetesBlock.safeParse(block);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`${i.path.map(String).join('.') || 'kubernetes'}: ${i.message}`);
  }
  return r.data;
}
