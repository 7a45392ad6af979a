/**
 * OpenAPI documents generated from the registered resources. kubectl reads `/openapi/v3` to decide how to validate:
 * when the PATCH operation of a kind lists the `fieldValidation` parameter it sends `?fieldValidation=Strict` and
 * lets the server validate (which we do against the CRD schema); so every kind gets its paths and operations here.
 * Built-in kinds get an open schema (any fields): their real schemas are not reproduced.
 */
import { createHash } from 'node:crypto';
import { clone, type JsonObject } from './patch.js';
import { gvString, type ResourceDef } from './types.js';

const OBJECT_META: JsonObject = {
  type: 'object',
  description: 'Standard object metadata.',
  properties: {
    name: { type: 'string' },
    generateName: { type: 'string' },
    namespace: { type: 'string' },
    uid: { type: 'string' },
    resourceVersion: { type: 'string' },
    generation: { type: 'integer', format: 'int64' },
    creationTimestamp: { type: 'string', format: 'date-time' },
    deletionTimestamp: { type: 'string', format: 'date-time' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    finalizers: { type: 'array', items: { type: 'string' } },
    ownerReferences: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    managedFields: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  },
};
const META_REF = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META_REF = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';
const STATUS_REF = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';

/** `example.com` + `v1` + `Widget` → `com.example.v1.Widget`; core kinds use `io.k8s.api.core.v1.X` like upstream. */
export function definitionName(def: Pick<ResourceDef, 'group' | 'version' | 'kind'>): string {
  if (def.group === '') return `io.k8s.api.core.${def.version}.${def.kind}`;
  if (def.group.endsWith('.k8s.io') || !def.group.includes('.')) {
    const short = def.group.replace(/\.k8s\.io$/, '').replace(/\.authorization$/, '');
    const pkg = def.group === 'apiextensions.k8s.io' ? 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions' : `io.k8s.api.${short}`;
    return `${pkg}.${def.version}.${def.kind}`;
  }
  return `${def.group.split('.').reverse().join('.')}.${def.version}.${def.kind}`;
}

function kindSchema(def: ResourceDef, refPrefix: string): JsonObject {
  const gvk = [{ group: def.group, version: def.version, kind: def.kind }];
  const base: JsonObject = def.schema ? clone(def.schema) : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const props = (base.properties as JsonObject | undefined) ?? {};
  base.properties = {
    ...props,
    apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
    kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
    metadata: refPrefix.startsWith('#/components') ? { allOf: [{ $ref: `${refPrefix}${META_REF}` }] } : { $ref: `${refPrefix}${META_REF}` },
  };
  base.type = 'object';
  base['x-kubernetes-group-version-kind'] = gvk;
  return base;
}

function listSchema(def: ResourceDef, refPrefix: string): JsonObject {
  return {
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      items: { type: 'array', items: { $ref: `${refPrefix}${definitionName(def)}` } },
      metadata: { $ref: `${refPrefix}${LIST_META_REF}` },
    },
    'x-kubernetes-group-version-kind': [{ group: def.group, version: def.version, kind: def.listKind }],
  };
}

/**
 * Strategic merge patch is accepted for built-in kinds but deliberately not advertised: kubectl would then compute
 * the patch from our (open) schemas and fail; without it kubectl uses its compiled-in Go types, which is right.
 */
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

function pathsFor(def: ResourceDef, v3: boolean): Record<string, JsonObject> {
  const prefix = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
  const ns = def.namespaced ? '/namespaces/{namespace}' : '';
  const refPrefix = v3 ? '#/components/schemas/' : '#/definitions/';
  const ref = { $ref: `${refPrefix}${definitionName(def)}` };
  const gvk = { group: def.group, version: def.version, kind: def.kind };
  const op = (action: string, kindRef: JsonObject, extraParams: JsonObject[] = [], body?: string[]): JsonObject => {
    const o: JsonObject = {
      operationId: `${action}${def.kind}`,
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
      parameters: extraParams,
      responses: v3
        ? { '200': { description: 'OK', content: { 'application/json': { schema: kindRef } } } }
        : { '200': { description: 'OK', schema: kindRef } },
    };
    if (body) {
      if (v3) o.requestBody = { content: Object.fromEntries(body.map((t) => [t, { schema: kindRef }])), required: true };
      else (o.parameters as JsonObject[]).push({ name: 'body', in: 'body', required: true, schema: kindRef });
      if (!v3) o.consumes = body;
    }
    return o;
  };
  const q = (name: string, type = 'string'): JsonObject =>
    v3 ? { name, in: 'query', schema: { type, uniqueItems: true } } : { name, in: 'query', type, uniqueItems: true };
  const p = (name: string): JsonObject =>
    v3 ? { name, in: 'path', required: true, schema: { type: 'string', uniqueItems: true } } : { name, in: 'path', required: true, type: 'string', uniqueItems: true };
  const write = [q('dryRun'), q('fieldManager'), q('fieldValidation')];
  const listRef = { $ref: `${refPrefix}${definitionName(def)}List` };
  const listParams = [q('labelSelector'), q('fieldSelector'), q('limit', 'integer'), q('continue'), q('resourceVersion'), q('watch', 'boolean'), q('allowWatchBookmarks', 'boolean'), q('timeoutSeconds', 'integer')];
  const nsParams = def.namespaced ? [p('namespace')] : [];
  const patchTypes = PATCH_TYPES;
  const paths: Record<string, JsonObject> = {
    [`${prefix}${ns}/${def.plural}`]: {
      get: op('list', listRef, listParams),
      post: op('post', ref, write, ['application/json', 'application/yaml']),
      delete: op('deletecollection', { $ref: `${refPrefix}${STATUS_REF}` }, listParams),
      parameters: nsParams,
    },
    [`${prefix}${ns}/${def.plural}/{name}`]: {
      get: op('get', ref),
      put: op('put', ref, write, ['application/json', 'application/yaml']),
      patch: op('patch', ref, [...write, q('force', 'boolean')], patchTypes),
      delete: op('delete', ref),
      parameters: [p('name'), ...nsParams],
    },
  };
  if (def.statusSubresource) {
    paths[`${prefix}${ns}/${def.plural}/{name}/status`] = {
      get: op('get', ref),
      put: op('put', ref, write, ['application/json', 'application/yaml']),
      patch: op('patch', ref, [...write, q('force', 'boolean')], patchTypes),
      parameters: [p('name'), ...nsParams],
    };
  }
  if (def.namespaced) paths[`${prefix}/${def.plural}`] = { get: op('list', listRef, listParams), parameters: [] };
  return paths;
}

const COMMON_SCHEMAS = (): Record<string, JsonObject> => ({
  [META_REF]: OBJECT_META,
  [LIST_META_REF]: { type: 'object', properties: { resourceVersion: { type: 'string' }, continue: { type: 'string' } } },
  [STATUS_REF]: {
    type: 'object',
    properties: { status: { type: 'string' }, message: { type: 'string' }, reason: { type: 'string' }, code: { type: 'integer' } },
    'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'Status' }],
  },
});

/** `/openapi/v3/apis/<group>/<version>` (or `api/v1`) document for the resources of one group version. */
export function openapiV3GroupVersion(defs: ResourceDef[], serverVersion: string): JsonObject {
  const refPrefix = '#/components/schemas/';
  const schemas: Record<string, JsonObject> = COMMON_SCHEMAS();
  let paths: Record<string, JsonObject> = {};
  for (const def of defs) {
    schemas[definitionName(def)] = kindSchema(def, refPrefix);
    schemas[`${definitionName(def)}List`] = listSchema(def, refPrefix);
    paths = { ...paths, ...pathsFor(def, true) };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: serverVersion }, paths, components: { schemas } };
}

/** Keys of the `/openapi/v3` index: `api/v1`, `apis/<group>/<version>`. */
export function v3Key(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

export function openapiV3Index(groupVersions: Map<string, ResourceDef[]>, serverVersion: string): JsonObject {
  const paths: JsonObject = {};
  for (const [key, defs] of groupVersions) {
    const hash = createHash('sha512')
      .update(JSON.stringify(openapiV3GroupVersion(defs, serverVersion)))
      .digest('hex')
      .slice(0, 64)
      .toUpperCase();
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { paths };
}

/** Swagger 2.0 document (JSON only: kubectl asks for protobuf, which we do not serve, and does without). */
export function openapiV2(defs: ResourceDef[], serverVersion: string): JsonObject {
  const refPrefix = '#/definitions/';
  const definitions: Record<string, JsonObject> = COMMON_SCHEMAS();
  let paths: Record<string, JsonObject> = {};
  for (const def of defs) {
    definitions[definitionName(def)] = kindSchema(def, refPrefix);
    definitions[`${definitionName(def)}List`] = listSchema(def, refPrefix);
    paths = { ...paths, ...pathsFor(def, false) };
  }
  return { swagger: '2.0', info: { title: 'Kubernetes', version: serverVersion }, paths, definitions };
}

export { gvString };
