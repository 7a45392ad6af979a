/**
 * The resources the server hosts: a fixed set of built-in kinds plus whatever CustomResourceDefinitions register,
 * and the structural-schema handling of custom resources (defaulting, pruning, validation with ajv).
 */
import { isIPv4, isIPv6 } from 'node:net';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { isObject, type Json, type JsonObject } from './patch.js';
import type { KubeObject, PrinterColumn, ResourceDef } from './types.js';


function builtin(
  group: string,
  version: string,
  kind: string,
  plural: string,
  opts: { namespaced?: boolean; shortNames?: string[]; status?: boolean; generation?: boolean; categories?: string[] },
): ResourceDef {
  return {
    group,
    version,
    kind,
    plural,
    singular: kind.toLowerCase(),
    listKind: `${kind}List`,
    namespaced: opts.namespaced ?? true,
    shortNames: opts.shortNames ?? [],
    categories: opts.categories ?? [],
    statusSubresource: opts.status ?? false,
    generation: opts.generation ?? false,
    unconditionalUpdate: true,
    printerColumns: [],
  };
}

/** Built-in kinds the chart and the console use. Their bodies are stored as given: no defaulting, no controllers. */
export function builtinResources(): ResourceDef[] {
  return [
    builtin('', 'v1', 'Namespace', 'namespaces', { namespaced: false, shortNames: ['ns'], status: true }),
    // exec and attach are connect subresources (an upgraded stream, exec.ts); no kubelet otherwise: see the README
    { ...builtin('', 'v1', 'Pod', 'pods', { shortNames: ['po'], status: true, categories: ['all'] }), connect: ['exec', 'attach', 'portforward'] },
    builtin('', 'v1', 'ServiceAccount', 'serviceaccounts', { shortNames: ['sa'] }),
    builtin('', 'v1', 'Service', 'services', { shortNames: ['svc'], status: true, categories: ['all'] }),
    builtin('', 'v1', 'Secret', 'secrets', {}),
    builtin('', 'v1', 'ConfigMap', 'configmaps', { shortNames: ['cm'] }),
    builtin('', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', { shortNames: ['pvc'], status: true }),
    builtin('', 'v1', 'Event', 'events', { shortNames: ['ev'] }),
    builtin('apps', 'v1', 'Deployment', 'deployments', {
      shortNames: ['deploy'],
      status: true,
      generation: true,
      categories: ['all'],
    }),
    builtin('networking.k8s.io', 'v1', 'Ingress', 'ingresses', { shortNames: ['ing'], status: true, generation: true }),
    // the catalog's kubernetes scraper walks these (owners, nodes); stored as sent, no controllers make them
    builtin('', 'v1', 'Node', 'nodes', { namespaced: false, shortNames: ['no'], status: true }),
    builtin('apps', 'v1', 'ReplicaSet', 'replicasets', { shortNames: ['rs'], status: true, generation: true, categories: ['all'] }),
    builtin('apps', 'v1', 'StatefulSet', 'statefulsets', { shortNames: ['sts'], status: true, generation: true, categories: ['all'] }),
    builtin('apps', 'v1', 'DaemonSet', 'daemonsets', { shortNames: ['ds'], status: true, generation: true, categories: ['all'] }),
    builtin('batch', 'v1', 'Job', 'jobs', { status: true, generation: true, categories: ['all'] }),
    builtin('batch', 'v1', 'CronJob', 'cronjobs', { shortNames: ['cj'], status: true, generation: true, categories: ['all'] }),
    builtin('rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', { namespaced: false }),
    builtin('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', 'clusterrolebindings', { namespaced: false }),
    builtin('rbac.authorization.k8s.io', 'v1', 'Role', 'roles', {}),
    builtin('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings', {}),
    builtin('coordination.k8s.io', 'v1', 'Lease', 'leases', {}),
    // virtual: answered by the authoriser, never stored (what `kubectl auth can-i` asks)
    { ...builtin('authorization.k8s.io', 'v1', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', { namespaced: false }), verbs: ['create'] },
    { ...builtin('authorization.k8s.io', 'v1', 'SubjectAccessReview', 'subjectaccessreviews', { namespaced: false }), verbs: ['create'] },
    builtin('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', 'customresourcedefinitions', {
      namespaced: false,
      shortNames: ['crd', 'crds'],
      status: true,
      generation: true,
      categories: ['api-extensions'],
    }),
  ];
}

export const CRD_GROUP = 'apiextensions.k8s.io';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function invalidName(name: unknown, label = false): string | undefined {
  if (typeof name !== 'string' || name === '') return 'Required value: name or generateName is required';
  const re = label ? DNS_LABEL : DNS_SUBDOMAIN;
  if (name.length > (label ? 63 : 253) || !re.test(name)) {
    return `Invalid value: "${name}": a lowercase RFC 1123 ${label ? 'label' : 'subdomain'} must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`;
  }
  return undefined;
}

const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** metadata.labels and metadata.annotations keys/values as apimachinery validates them. */
export function metadataProblems(meta: Record<string, unknown>): Cause[] {
  const causes: Cause[] = [];
  const keyOk = (k: string) => QUALIFIED_NAME.test(k) && k.split('/').pop()!.length <= 63 && (k.includes('/') ? k.split('/')[0].length <= 253 : true);
  for (const field of ['labels', 'annotations'] as const) {
    const m = meta[field];
    if (m === undefined || m === null) continue;
    if (!isObject(m as Json)) {
      causes.push({ field: `metadata.${field}`, message: `metadata.${field}: Invalid value: must be a map of strings`, reason: 'FieldValueInvalid' });
      continue;
    }
    for (const [k, v] of Object.entries(m as Record<string, unknown>)) {
      if (!keyOk(k)) {
        causes.push({ field: `metadata.${field}`, message: `metadata.${field}: Invalid value: "${k}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`, reason: 'FieldValueInvalid' });
      } else if (typeof v !== 'string') {
        causes.push({ field: `metadata.${field}.${k}`, message: `metadata.${field}.${k}: Invalid value: must be a string`, reason: 'FieldValueTypeInvalid' });
      } else if (field === 'labels' && (v.length > 63 || !LABEL_VALUE.test(v))) {
        causes.push({ field: `metadata.labels`, message: `metadata.labels: Invalid value: "${v}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`, reason: 'FieldValueInvalid' });
      }
    }
  }
  return causes;
}

/** Checks a CRD the way the apiextensions validation would catch the mistakes we care about; returns causes. */
export function crdProblems(crd: KubeObject): string[] {
  const problems: string[] = [];
  const spec = crd.spec as JsonObject | undefined;
  if (!isObject(spec)) return ['spec: Required value'];
  const names = spec.names as JsonObject | undefined;
  if (typeof spec.group !== 'string' || !spec.group.includes('.')) problems.push('spec.group: Invalid value: should be a domain with at least one dot');
  if (!isObject(names) || typeof names.plural !== 'string' || typeof names.kind !== 'string') {
    problems.push('spec.names: Required value: plural and kind are required');
  } else if (crd.metadata.name !== `${names.plural}.${spec.group}`) {
    problems.push(`metadata.name: Invalid value: "${crd.metadata.name}": must be spec.names.plural+"."+spec.group`);
  }
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') problems.push('spec.scope: Unsupported value: must be Namespaced or Cluster');
  const versions = spec.versions;
  if (!Array.isArray(versions) || versions.length === 0) problems.push('spec.versions: Required value');
  else {
    if (versions.filter((v) => isObject(v) && v.storage === true).length !== 1) {
      problems.push('spec.versions: Invalid value: must have exactly one version marked as storage version');
    }
    versions.forEach((v, i) => {
      if (!isObject(v) || typeof v.name !== 'string') problems.push(`spec.versions[${i}].name: Required value`);
      else if (!isObject(v.schema) || !isObject(v.schema.openAPIV3Schema)) {
        problems.push(`spec.versions[${i}].schema.openAPIV3Schema: Required value: schemas are required`);
      }
    });
  }
  return problems;
}

/** The served versions of a CRD as resource definitions. */
export function crdToDefs(crd: KubeObject): ResourceDef[] {
  const spec = crd.spec as JsonObject;
  const names = spec.names as JsonObject;
  const versions = (spec.versions as JsonObject[]).filter((v) => v.served !== false);
  return versions.map((v) => {
    const subresources = (v.subresources ?? {}) as JsonObject;
    const cols = (v.additionalPrinterColumns ?? []) as unknown as PrinterColumn[];
    return {
      group: spec.group as string,
      version: v.name as string,
      kind: names.kind as string,
      plural: names.plural as string,
      singular: (names.singular as string) || (names.kind as string).toLowerCase(),
      listKind: (names.listKind as string) || `${names.kind}List`,
      namespaced: spec.scope === 'Namespaced',
      shortNames: (names.shortNames as string[]) ?? [],
      categories: (names.categories as string[]) ?? [],
      statusSubresource: isObject(subresources.status),
      generation: true,
      unconditionalUpdate: false,
      schema: (v.schema as JsonObject).openAPIV3Schema as JsonObject,
      printerColumns: cols,
      crd: crd.metadata.name,
    };
  });
}

/** CRD status as the real apiextensions controller sets it once names are accepted. */
export function crdStatus(crd: KubeObject): JsonObject {
  const spec = crd.spec as JsonObject;
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    acceptedNames: spec.names as JsonObject,
    storedVersions: (spec.versions as JsonObject[]).filter((v) => v.storage).map((v) => v.name as string),
    conditions: [
      { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: now },
      { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: now },
    ],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Structural schema handling

const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
const compiled = new WeakMap<JsonObject, ValidateFunction>();

/**
 * The string formats the apiextensions validator checks that CRDs commonly use. Any other format (int32, int64,
 * double, password...) is accepted as is, like the real server does for formats it does not know.
 */
const FORMATS: Record<string, RegExp | ((s: string) => boolean)> = {
  'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
  datetime: /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  byte: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
  uuid: /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/,
  ipv4: (v) => isIPv4(v),
  ipv6: (v) => isIPv6(v),
};
for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, check);

function declareUnknownFormats(s: Json) {
  if (Array.isArray(s)) return s.forEach(declareUnknownFormats);
  if (!isObject(s)) return;
  if (typeof s.format === 'string' && !ajv.formats[s.format]) ajv.addFormat(s.format, true);
  Object.values(s).forEach(declareUnknownFormats);
}

/** JSON-schema copy of an openAPIV3Schema: only keywords ajv must not misread are adjusted. */
function toJsonSchema(s: Json): Json {
  if (Array.isArray(s)) return s.map(toJsonSchema);
  if (!isObject(s)) return s;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'properties' && isObject(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([p, ps]) => [p, toJsonSchema(ps)]));
    } else if (k === 'nullable' || k === 'default' || k === 'example' || k.startsWith('x-')) {
      continue;
    } else {
      out[k] = toJsonSchema(v);
    }
  }
  // OpenAPI nullable: null is accepted where the type would otherwise reject it
  if (s.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  // int-or-string has no type; the real server accepts an integer or a string
  if (s['x-kubernetes-int-or-string'] === true && out.type === undefined) {
    out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  }
  return out;
}

function validatorFor(schema: JsonObject): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    // apiVersion, kind and metadata are the server's business, not the schema's
    const body = clone(toJsonSchema(schema)) as JsonObject;
    if (isObject(body.properties)) {
      delete body.properties.metadata;
      delete body.properties.apiVersion;
      delete body.properties.kind;
    }
    declareUnknownFormats(body);
    v = ajv.compile(body);
    compiled.set(schema, v);
  }
  return v;
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

const preserves = (s: JsonObject) => s['x-kubernetes-preserve-unknown-fields'] === true;

/**
 * Apply `default`s and drop fields the schema does not declare (structural pruning), in place. Returns the paths of
 * the pruned fields so strict field validation can report them.
 */
export function defaultAndPrune(value: Json, schema: JsonObject, path: string, pruned: string[], root = false): void {
  if (Array.isArray(value)) {
    const items = schema.items;
    if (isObject(items)) value.forEach((v, i) => defaultAndPrune(v, items, `${path}[${i}]`, pruned));
    return;
  }
  if (!isObject(value)) return;
  const props = isObject(schema.properties) ? schema.properties : undefined;
  const additional = schema.additionalProperties;
  if (props) {
    for (const [k, ps] of Object.entries(props)) {
      if (!isObject(ps)) continue;
      if (value[k] === undefined && ps.default !== undefined) value[k] = clone(ps.default);
    }
  }
  for (const k of Object.keys(value)) {
    if (root && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
    const child = `${path ? `${path}.` : ''}${k}`;
    const ps = props?.[k];
    if (isObject(ps)) defaultAndPrune(value[k], ps, child, pruned);
    else if (isObject(additional)) defaultAndPrune(value[k], additional, child, pruned);
    else if (additional === true || preserves(schema)) continue;
    else if (schema['x-kubernetes-embedded-resource'] === true && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
    else {
      delete value[k];
      pruned.push(child);
    }
  }
}

export interface Cause {
  field: string;
  message: string;
  reason: string;
}

function fieldOf(err: ErrorObject): string {
  const base = err.instancePath
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, t) => (/^\d+$/.test(t) ? `${acc}[${t}]` : acc ? `${acc}.${t}` : t), '');
  if (err.keyword === 'required') {
    const p = (err.params as { missingProperty: string }).missingProperty;
    return base ? `${base}.${p}` : p;
  }
  return base;
}

const show = (v: unknown) => (typeof v === 'string' ? `"${v}"` : JSON.stringify(v));

/** Validate a (defaulted, pruned) custom resource; causes phrased like the apiextensions validator. */
export function validateAgainstSchema(obj: KubeObject, schema: JsonObject): Cause[] {
  const validate = validatorFor(schema);
  if (validate(obj)) return [];
  const causes: Cause[] = [];
  for (const err of validate.errors ?? []) {
    // anyOf/oneOf wrappers repeat their branches' errors; the branch errors say it better
    if (err.keyword === 'anyOf' || err.keyword === 'oneOf' || err.keyword === 'if') continue;
    const field = fieldOf(err);
    const value = field ? getPath(obj, err.instancePath) : undefined;
    let message: string;
    let reason = 'FieldValueInvalid';
    switch (err.keyword) {
      case 'required':
        message = `${field}: Required value`;
        reason = 'FieldValueRequired';
        break;
      case 'type':
        message = `${field}: Invalid value: ${show(value)}: ${field} in body must be of type ${(err.params as { type: string }).type}: ${show(value)}`;
        reason = 'FieldValueTypeInvalid';
        break;
      case 'format':
        message = `${field}: Invalid value: ${show(value)}: ${field} in body must be of type ${(err.params as { format: string }).format}: ${show(value)}`;
        break;
      case 'enum':
        message = `${field}: Unsupported value: ${show(value)}: supported values: ${((err.params as { allowedValues: unknown[] }).allowedValues ?? []).map(show).join(', ')}`;
        reason = 'FieldValueNotSupported';
        break;
      default:
        message = `${field}: Invalid value: ${show(value)}: ${field} in body ${err.message}`;
    }
    if (!causes.some((c) => c.message === message)) causes.push({ field, message, reason });
  }
  return causes;
}

function getPath(obj: unknown, pointer: string): unknown {
  let cur: unknown = obj;
  for (const t of pointer.split('/').slice(1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[t.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return cur;
}
