import { z } from 'zod';
import { NumberOrTemplate, templatedString } from './env-var.js';

/** Pods to read, by name or labels (the reference's resource selectors, the parts that apply to pods). */
const PodSelector = z.object({ name: z.string().optional(), labelSelector: z.string().optional() }).loose();

/** The kinds whose pods the logs action reads. */
export const LOGS_KINDS = ['Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'] as const;
export type LogsKind = typeof LOGS_KINDS[number];
export const isLogsKind = (v: unknown): v is LogsKind => (LOGS_KINDS as readonly unknown[]).includes(v);
export const LOGS_KIND_MESSAGE = `must be one of ${LOGS_KINDS.join(', ')}`;

/**
 * The reference's Kubernetes log request: a Pod, or the pods of a Deployment/StatefulSet/DaemonSet/ReplicaSet
 * (`kind`, `namespace`, `name`), or any pods matching `pods` selectors in `namespace`; `containers` names to keep;
 * `start` (`now-1h`, `1h`, an RFC 3339 time), `end`, `limit` lines per container. `kind` may be a template (the
 * reference's `$(.config.config_class)`): checked at save when literal, once rendered when the action runs.
 */
const KubernetesLogs = z.object({
  kind: templatedString(isLogsKind, `${LOGS_KIND_MESSAGE} (or a template that renders to one)`)
    .meta({ examples: [...LOGS_KINDS] }).optional(),
  apiVersion: z.string().optional(),
  namespace: z.string().optional(),
  name: z.string().optional(),
  pods: z.array(PodSelector).optional(),
  containers: z.array(z.string()).optional(),
  start: z.string().optional(),
  end: z.string().optional(),
  limit: NumberOrTemplate.optional(),
}).loose().refine((k) => !!(k.name || k.pods?.length), { message: 'name or pods is required', path: ['name'] });

const unsupported = (backend: string) => z.never({ error: `the ${backend} logs backend is not supported by this console` }).optional();

/**
 * The `logs` action's block (issue 14): the `kubernetes` backend → `{logs: [{timestamp, message, labels, host…}]}`,
 * `dedupe` (fields) and `match` (CEL over each line) applied after. loki, cloudwatch and opensearch: refused by path.
 */
export const LogsAction = z.object({
  kubernetes: KubernetesLogs.optional(),
  loki: unsupported('loki'),
  cloudwatch: unsupported('cloudwatch'),
  opensearch: unsupported('opensearch'),
  dedupe: z.object({ fields: z.array(z.string()).optional() }).loose().optional(),
  match: z.array(z.string()).optional(),
}).loose().refine((l) => !!l.kubernetes, { message: 'kubernetes is required (the only logs backend this console runs)', path: ['kubernetes'] });
export type LogsAction = z.infer<typeof LogsAction>;
