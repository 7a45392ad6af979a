import { z } from 'zod';

/**
 * The LoggingBackend spec (apm-hub.flanksource.com/v1, flanksource/apm-hub's LoggingBackendSpec): `{backends: [...]}`,
 * each backend one of kubernetes, file, elasticsearch, opensearch or cloudwatch, with the routes that send a log
 * query to it. Secret fields are EnvVars (`value` or `valueFrom` a secret or config map key). Known fields are typed;
 * the rest are kept.
 */

const KeyRef = z.object({ name: z.string().optional(), key: z.string(), optional: z.boolean().optional() }).loose();
const EnvVar = z.object({
  name: z.string().optional(),
  value: z.string().optional(),
  valueFrom: z.object({ secretKeyRef: KeyRef.optional(), configMapKeyRef: KeyRef.optional() }).loose().optional(),
}).loose();
const StringMap = z.record(z.string(), z.string());

/** What every backend has: the labels added to its lines and the routes that pick it. */
const common = {
  labels: StringMap.optional(),
  routes: z.array(z.object({
    type: z.string().optional(),
    id_prefix: z.string().optional(),
    labels: StringMap.optional(),
    is_additive: z.boolean().optional(),
  }).loose()).optional(),
};

const SearchFields = z.object({
  timestamp: z.string().optional(),
  message: z.string().optional(),
  exclusions: z.array(z.string()).optional(),
}).loose();

const search = {
  ...common,
  address: z.string().optional(),
  index: z.string().optional(),
  query: z.string().optional(),
  namespace: z.string().optional(),
  username: EnvVar.optional(),
  password: EnvVar.optional(),
  fields: SearchFields.optional(),
};

export const LoggingBackendSpec = z.object({
  backends: z.array(z.object({
    kubernetes: z.object({ ...common, kubeconfig: EnvVar.optional(), namespace: z.string().optional() }).loose().optional(),
    file: z.object({ ...common, path: z.array(z.string()).optional() }).loose().optional(),
    elasticsearch: z.object({ ...search, cloud_id: EnvVar.optional(), api_key: EnvVar.optional() }).loose().optional(),
    opensearch: z.object(search).loose().optional(),
    cloudwatch: z.object({
      ...common,
      auth: z.object({ access_key: EnvVar.optional(), secret_key: EnvVar.optional(), region: z.string().optional() }).loose().optional(),
      log_group: z.string().optional(),
      query: z.string().optional(),
      namespace: z.string().optional(),
    }).loose().optional(),
  }).loose()).optional(),
}).loose();
