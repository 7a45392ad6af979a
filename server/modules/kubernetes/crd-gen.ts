import { z } from 'zod';
import { stringify } from 'yaml';
import { crdName, type KindDef } from './kinds.js';

/**
 * Builds the CustomResourceDefinition of a kind from its zod spec, so that the CRD in `crds/` and the console's
 * own validation never disagree (`scripts/gen-crds.ts` writes the files; `tests/kube/kinds.test.ts` compares).
 *
 * Kubernetes wants a *structural* OpenAPI v3 schema: every node typed, no `additionalProperties` beside
 * `properties`, no unions with differing types. zod's JSON Schema (2020-12) is translated node by node:
 * - an object keeps its typed properties and gets `x-kubernetes-preserve-unknown-fields` unless it is `.strict()`:
 *   zod ignores (or keeps) unknown keys, so the API server must not refuse them either, and manifests written for
 *   the reference with fields this console does not read still apply unchanged;
 * - `number | string` becomes `x-kubernetes-int-or-string`; any other union or `unknown` becomes an untyped node
 *   that preserves whatever it is given (the console validates those itself and reports on the CR's status);
 * - defaults are dropped on purpose: the API server would write them into the stored object, and a GitOps tool
 *   would then see a diff against what the user wrote.
 */

type Json = Record<string, unknown>;

const SAFE_INT = Number.MAX_SAFE_INTEGER;
const KEEP = ['description', 'pattern', 'minLength', 'maxLength', 'minItems', 'maxItems', 'enum', 'format'] as const;
/** Formats the API server knows; zod emits others (e.g. `uri`) that it would ignore or reject. */
const FORMATS = new Set(['date-time', 'date', 'email', 'uuid', 'byte', 'int32', 'int64']);

const preserve = (): Json => ({ 'x-kubernetes-preserve-unknown-fields': true });

function typesOf(s: Json): string[] {
  if (Array.isArray(s.type)) return s.type as string[];
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.anyOf)) return (s.anyOf as Json[]).flatMap(typesOf);
  if (Array.isArray(s.oneOf)) return (s.oneOf as Json[]).flatMap(typesOf);
  return [];
}

/** Merges `allOf` object members (an intersection) into one object schema. */
function mergeAllOf(members: Json[]): Json {
  const out: Json = { type: 'object', properties: {}, required: [] };
  for (const m of members) {
    Object.assign(out.properties as Json, m.properties ?? {});
    (out.required as string[]).push(...((m.required as string[]) ?? []));
    if (m.additionalProperties !== undefined && m.additionalProperties !== false) out.additionalProperties = {};
  }
  return out;
}

/** One JSON Schema node to a structural OpenAPI v3 node. */
export function structural(input: Json): Json {
  let s = input;
  if (Array.isArray(s.allOf)) s = mergeAllOf((s.allOf as Json[]).map((m) => m));
  if (s.const !== undefined) s = { ...s, type: typeof s.const, enum: [s.const] };

  const types = [...new Set(typesOf(s))];
  if (types.length === 0) return preserve();
  if (types.length > 1) {
    const numeric = types.every((t) => t === 'number' || t === 'integer' || t === 'string');
    return numeric && types.includes('string') ? { 'x-kubernetes-int-or-string': true } : preserve();
  }
  if (s.anyOf || s.oneOf) {
    // one type across the members (e.g. two object shapes): keep the type, accept any of their fields
    return types[0] === 'object' ? { type: 'object', ...preserve() } : { type: types[0] };
  }

  const type = types[0];
  const out: Json = { type };
  for (const key of KEEP) if (s[key] !== undefined) out[key] = s[key];
  if (out.format !== undefined && !FORMATS.has(out.format as string)) delete out.format;
  if (typeof s.minimum === 'number') out.minimum = s.minimum;
  if (typeof s.maximum === 'number' && s.maximum < SAFE_INT) out.maximum = s.maximum;
  // exclusive bounds become inclusive ones: OpenAPI 3.0's boolean `exclusiveMinimum` is what Kubernetes wants but
  // JSON Schema tooling (ajv and friends) reads it as the 2020-12 number; the console's zod check keeps the strict bound
  if (typeof s.exclusiveMinimum === 'number') out.minimum = s.exclusiveMinimum;
  if (typeof s.exclusiveMaximum === 'number' && s.exclusiveMaximum < SAFE_INT) out.maximum = s.exclusiveMaximum;

  if (type === 'array') out.items = s.items && typeof s.items === 'object' ? structural(s.items as Json) : preserve();
  if (type === 'object') {
    const props = (s.properties ?? {}) as Record<string, Json>;
    const extra = s.additionalProperties;
    if (Object.keys(props).length) {
      out.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, structural(v)]));
      if (Array.isArray(s.required) && s.required.length) out.required = [...new Set(s.required as string[])];
      if (extra !== false) out['x-kubernetes-preserve-unknown-fields'] = true;
    } else if (extra && typeof extra === 'object' && Object.keys(extra).length) {
      out.additionalProperties = structural(extra as Json);
    } else {
      out['x-kubernetes-preserve-unknown-fields'] = true;
    }
  }
  return out;
}

/** The structural schema of a kind's spec. */
export function specSchema(kind: KindDef): Json {
  const json = z.toJSONSchema(kind.spec, { io: 'input', unrepresentable: 'any' }) as Json;
  delete json.$schema;
  return structural(json);
}

// ---- status and printer columns (what the console writes back; field names as the reference) ----

const str = { type: 'string' };
const date = { type: 'string', format: 'date-time' };
const int = { type: 'integer' };

const CANARY_CHECK_STATUS = {
  type: 'object',
  properties: { lastTransitionedTime: date, lastCheck: date, message: str, errorMessage: str, uptime1h: str, latency1h: str },
};

const CONDITIONS = {
  type: 'array',
  items: {
    type: 'object',
    properties: { type: str, status: str, reason: str, message: str, lastTransitionTime: date, observedGeneration: int },
    required: ['type', 'status'],
  },
};

const STATUS: Record<string, Json> = {
  Canary: {
    type: 'object',
    properties: {
      persistedID: str,
      status: { type: 'string', description: 'Passed, Failed or Invalid' },
      lastTransitionedTime: date,
      lastCheck: date,
      message: str,
      errorMessage: str,
      uptime1h: str,
      latency1h: str,
      replicas: int,
      observedGeneration: { type: 'integer', format: 'int64' },
      checks: { type: 'object', description: 'check name to check id', additionalProperties: str },
      checkStatus: { type: 'object', description: 'check id to its latest state', additionalProperties: CANARY_CHECK_STATUS },
    },
  },
  Notification: {
    type: 'object',
    properties: { sent: int, failed: int, pending: int, lastSent: date, lastFailed: date, error: str, status: str, conditions: CONDITIONS },
  },
  // as the reference's controller: a Ready condition (False with the spec's problems by path); playbooks/cr-status.ts
  Playbook: {
    type: 'object',
    properties: { conditions: CONDITIONS },
  },
  NotificationSilence: { type: 'object', properties: { conditions: CONDITIONS } },
};

/** What the console reports on every kind besides its own fields: whether the spec validated. */
const COMMON_STATUS = {
  observedGeneration: { type: 'integer', format: 'int64' },
  status: str,
  message: str,
  errorMessage: str,
  persistedID: str,
};

function statusSchema(kind: KindDef): Json {
  const own = STATUS[kind.kind];
  return {
    type: 'object',
    properties: { ...COMMON_STATUS, ...((own?.properties as Json) ?? {}) },
    // other writers (the reference's controllers) may add their own fields
    'x-kubernetes-preserve-unknown-fields': true,
  };
}

interface Column { name: string; type: string; jsonPath: string; priority?: number; description?: string }

const AGE: Column = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

const COLUMNS: Record<string, Column[]> = {
  Canary: [
    { name: 'Schedule', type: 'string', jsonPath: '.spec.schedule' },
    { name: 'Interval', type: 'integer', jsonPath: '.spec.interval', priority: 1 },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 },
    { name: 'Status', type: 'string', jsonPath: '.status.status' },
    { name: 'Last Check', type: 'date', jsonPath: '.status.lastCheck' },
    { name: 'Uptime 1H', type: 'string', jsonPath: '.status.uptime1h' },
    { name: 'Latency 1H', type: 'string', jsonPath: '.status.latency1h' },
    { name: 'Last Transitioned', type: 'date', jsonPath: '.status.lastTransitionedTime' },
    { name: 'Message', type: 'string', jsonPath: '.status.message' },
    { name: 'Error', type: 'string', jsonPath: '.status.errorMessage', priority: 1 },
  ],
  Topology: [
    { name: 'Type', type: 'string', jsonPath: '.spec.type' },
    { name: 'Schedule', type: 'string', jsonPath: '.spec.schedule' },
    { name: 'Status', type: 'string', jsonPath: '.status.status' },
    AGE,
  ],
  ScrapeConfig: [
    { name: 'Schedule', type: 'string', jsonPath: '.spec.schedule' },
    { name: 'Status', type: 'string', jsonPath: '.status.status' },
    AGE,
  ],
  Playbook: [
    { name: 'Title', type: 'string', jsonPath: '.spec.title' },
    { name: 'Category', type: 'string', jsonPath: '.spec.category' },
    { name: 'Status', type: 'string', jsonPath: '.status.status' },
    AGE,
  ],
  Connection: [
    { name: 'Type', type: 'string', jsonPath: '.spec.type' },
    { name: 'Status', type: 'string', jsonPath: '.status.status' },
    AGE,
  ],
  Notification: [
    { name: 'Events', type: 'string', jsonPath: '.spec.events' },
    { name: 'Status', type: 'string', jsonPath: '.status.status' },
    { name: 'Sent', type: 'integer', jsonPath: '.status.sent' },
    { name: 'Failed', type: 'integer', jsonPath: '.status.failed' },
    { name: 'Last Sent', type: 'date', jsonPath: '.status.lastSent' },
    AGE,
  ],
  NotificationSilence: [
    { name: 'From', type: 'string', jsonPath: '.spec.from' },
    { name: 'Until', type: 'string', jsonPath: '.spec.until' },
    { name: 'Filter', type: 'string', jsonPath: '.spec.filter', priority: 1 },
    AGE,
  ],
};

/** The whole CRD object of a kind. */
export function buildCrd(kind: KindDef): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: crdName(kind),
      labels: { 'app.kubernetes.io/part-of': 'ops-console' },
    },
    spec: {
      group: kind.group,
      names: {
        kind: kind.kind,
        listKind: `${kind.kind}List`,
        plural: kind.plural,
        singular: kind.singular,
        ...(kind.shortNames.length ? { shortNames: [...kind.shortNames] } : {}),
        categories: ['ops-console'],
      },
      scope: 'Namespaced',
      versions: [{
        name: kind.version,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: COLUMNS[kind.kind] ?? [AGE],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: `${kind.kind} (${kind.group}/${kind.version}), reconciled by the console into its ${kind.table} table.`,
            properties: {
              apiVersion: str,
              kind: str,
              metadata: { type: 'object' },
              spec: specSchema(kind),
              status: statusSchema(kind),
            },
            required: ['spec'],
          },
        },
      }],
    },
  };
}

/** The CRD as the YAML file written to `crds/` and `chart/crds/`. */
export function renderCrdYaml(kind: KindDef): string {
  return `# Generated from server/modules/kubernetes/kinds.ts by scripts/gen-crds.ts: edit the zod spec, then regenerate.\n${stringify(buildCrd(kind), { lineWidth: 0, aliasDuplicateObjects: false })}`;
}
