/**
 * The object store: one global resourceVersion counter, objects by storage key (group/plural, shared by all served
 * versions of a kind), a bounded event history for watch resumes, and the live watchers.
 *
 * Every operation here is what the REST layer does after authorisation: it returns a `Result` (status code and body)
 * rather than writing HTTP, so the test-facing helpers reuse exactly the same code paths.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  clone,
  deepEqual,
  isObject,
  jsonPatch,
  mergePatch,
  PatchError,
  strategicMergePatch,
  type Json,
  type JsonObject,
} from './patch.js';
import {
  builtinResources,
  CRD_GROUP,
  crdProblems,
  crdStatus,
  crdToDefs,
  defaultAndPrune,
  invalidName,
  metadataProblems,
  validateAgainstSchema,
  type Cause,
} from './resources.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import { gvString, storageKey, type KubeObject, type ResourceDef } from './types.js';

export interface Result {
  code: number;
  body: unknown;
  warnings?: string[];
}

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface HistoryEvent {
  rv: number;
  key: string;
  type: EventType;
  obj: KubeObject;
  prev?: KubeObject;
}

export interface Watcher {
  key: string;
  def: ResourceDef;
  namespace?: string;
  matches: (obj: KubeObject) => boolean;
  send: (type: string, obj: KubeObject) => void;
  close: (abrupt?: boolean) => void;
}

export function statusBody(code: number, reason: string, message: string, details?: Record<string, unknown>): JsonObject {
  const body: JsonObject = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) body.details = details as JsonObject;
  return body;
}

export const fail = (code: number, reason: string, message: string, details?: Record<string, unknown>): Result => ({
  code,
  body: statusBody(code, reason, message, details),
});

const qualified = (def: ResourceDef) => (def.group ? `${def.plural}.${def.group}` : def.plural);

export function notFound(def: ResourceDef, name: string): Result {
  return fail(404, 'NotFound', `${qualified(def)} "${name}" not found`, { name, group: def.group, kind: def.plural });
}

function invalid(def: ResourceDef, name: string, causes: Cause[]): Result {
  const kind = def.group ? `${def.kind}.${def.group}` : def.kind;
  return fail(422, 'Invalid', `${kind} "${name}" is invalid: ${causes.map((c) => c.message).join(', ')}`, {
    name,
    group: def.group,
    kind: def.kind,
    causes: causes.map((c) => ({ reason: c.reason, message: c.message.replace(/^[^:]+: /, ''), field: c.field })),
  });
}

function conflict(def: ResourceDef, name: string): Result {
  return fail(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(def)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, group: def.group, kind: def.plural },
  );
}

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export interface WriteOptions {
  dryRun?: boolean;
  /** `fieldValidation`: Strict (kubectl's default) rejects unknown fields, Warn reports them, Ignore drops them */
  fieldValidation?: string;
}

export class Store {
  /** group/version/plural → def */
  readonly defs = new Map<string, ResourceDef>();
  private readonly data = new Map<string, Map<string, KubeObject>>();
  private counter = 1;
  private history: HistoryEvent[] = [];
  /** watches from a resourceVersion below this get 410 Gone */
  private floor = 0;
  readonly watchers = new Set<Watcher>();
  /** New pods start Pending, for the stand-in kubelet's lifecycle (kubelet.ts) to run them; else Running at once. */
  podsStartPending = false;

  constructor(private readonly historySize = 10_000) {
    for (const def of builtinResources()) this.register(def);
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      this.create(this.def('', 'v1', 'namespaces')!, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    }
  }

  get resourceVersion(): string {
    return String(this.counter);
  }

  private register(def: ResourceDef) {
    this.defs.set(`${def.group}/${def.version}/${def.plural}`, def);
    if (!this.data.has(storageKey(def))) this.data.set(storageKey(def), new Map());
  }

  def(group: string, version: string, plural: string): ResourceDef | undefined {
    return this.defs.get(`${group}/${version}/${plural}`);
  }

  defsOf(group: string, version?: string): ResourceDef[] {
    return [...this.defs.values()].filter((d) => d.group === group && (version === undefined || d.version === version));
  }

  /** Any served version of a storage key (used by the authoriser, which is version-agnostic). */
  private anyDef(group: string, plural: string): ResourceDef | undefined {
    return [...this.defs.values()].find((d) => d.group === group && d.plural === plural);
  }

  private bucket(def: ResourceDef): Map<string, KubeObject> {
    let b = this.data.get(storageKey(def));
    if (!b) {
      b = new Map();
      this.data.set(storageKey(def), b);
    }
    return b;
  }

  private present(def: ResourceDef, obj: KubeObject): KubeObject {
    const out = clone(obj);
    out.apiVersion = gvString(def.group, def.version);
    out.kind = def.kind;
    return out;
  }

  // -------------------------------------------------------------------------------------------------------------
  // reads

  getRaw(group: string, plural: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.data.get(`${group}/${plural}`)?.get(`${namespace ?? ''}/${name}`);
  }

  listRaw(group: string, plural: string): KubeObject[] {
    return [...(this.data.get(`${group}/${plural}`)?.values() ?? [])];
  }

  get(def: ResourceDef, namespace: string | undefined, name: string): Result {
    const obj = this.bucket(def).get(`${def.namespaced ? (namespace ?? '') : ''}/${name}`);
    return obj ? { code: 200, body: this.present(def, obj) } : notFound(def, name);
  }

  /** Matching objects sorted by namespace/name; selector syntax errors throw SelectorError. */
  select(def: ResourceDef, namespace: string | undefined, labelSelector?: string | null, fieldSelector?: string | null) {
    const labels = parseLabelSelector(labelSelector);
    const fields = parseFieldSelector(fieldSelector);
    return [...this.bucket(def).entries()]
      .filter(([, o]) => (!namespace || o.metadata.namespace === namespace) && labels(o.metadata.labels ?? {}) && fields(o))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      // presented (cloned) only when read: a paged list reads one page, not the whole collection per page
      .map(([k, o]) => {
        let presented: KubeObject | undefined;
        const present = () => (presented ??= this.present(def, o));
        // raw: the stored object itself, for a list answer that is serialised at once (no one keeps or edits it)
        return { key: k, raw: o, get obj() { return present(); } };
      });
  }

  // -------------------------------------------------------------------------------------------------------------
  // writes

  private bump(): string {
    this.counter += 1;
    return String(this.counter);
  }

  private emit(def: ResourceDef, type: EventType, obj: KubeObject, prev?: KubeObject) {
    const ev: HistoryEvent = { rv: Number(obj.metadata.resourceVersion), key: storageKey(def), type, obj: clone(obj), prev };
    this.history.push(ev);
    if (this.history.length > this.historySize) {
      const dropped = this.history.splice(0, this.history.length - this.historySize);
      this.floor = Math.max(this.floor, dropped[dropped.length - 1].rv);
    }
    for (const w of this.watchers) deliver(w, ev);
  }

  /** Events after `rv` for a watcher, or undefined when they are no longer all in the history (410 Gone). */
  replay(w: Watcher, rv: number): boolean {
    if (rv < this.floor) return false;
    for (const ev of this.history) if (ev.rv > rv) deliver(w, ev);
    return true;
  }

  get oldestResumableVersion(): number {
    return this.floor;
  }

  /** Compaction: every resourceVersion handed out so far becomes too old to watch from. */
  expireHistory() {
    this.history = [];
    this.bump(); // a fresh version for the relist, so the list after the 410 can be watched from
    this.floor = this.counter;
  }

  private namespaceExists(ns: string): boolean {
    return this.bucket(this.def('', 'v1', 'namespaces')!).has(`/${ns}`);
  }

  /** Kind-specific server behaviour on writes (the few bits of the real registries that clients notice). */
  private prepare(def: ResourceDef, obj: KubeObject, old: KubeObject | undefined): Result | undefined {
    if (def.group === '' && def.plural === 'secrets' && isObject(obj.stringData as Json)) {
      const data = { ...((obj.data as Record<string, string>) ?? {}) };
      for (const [k, v] of Object.entries(obj.stringData as Record<string, string>)) {
        data[k] = Buffer.from(String(v)).toString('base64');
      }
      obj.data = data;
      delete obj.stringData;
    }
    if (def.group === '' && def.plural === 'namespaces') {
      obj.spec = old?.spec ?? { finalizers: ['kubernetes'] };
      obj.status = old?.status ?? { phase: 'Active' };
      obj.metadata.labels = { ...(obj.metadata.labels ?? {}), 'kubernetes.io/metadata.name': obj.metadata.name };
    }
    if (def.group === '' && def.plural === 'services') {
      const spec = (isObject(obj.spec as Json) ? obj.spec : (obj.spec = {})) as JsonObject;
      if (spec.type !== 'ExternalName' && spec.clusterIP === undefined) {
        const oldIp = (old?.spec as JsonObject | undefined)?.clusterIP;
        const ip = typeof oldIp === 'string' ? oldIp : `10.96.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0] % 254)}`;
        spec.clusterIP = ip;
        spec.clusterIPs = [ip];
      }
      if (!obj.status && !old) obj.status = { loadBalancer: {} };
    }
    if (def.group === '' && def.plural === 'pods') {
      // the API server's validation of what exec needs, and a stand-in kubelet: a new pod is Running at once
      const containers = (obj.spec as JsonObject | undefined)?.containers;
      if (!Array.isArray(containers) || !containers.length || !containers.every((c) => isObject(c) && typeof c.name === 'string' && c.name)) {
        return invalid(def, obj.metadata.name, [{ field: 'spec.containers', message: 'spec.containers: Required value', reason: 'FieldValueRequired' }]);
      }
      if (!old && !obj.status && this.podsStartPending) {
        obj.status = {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: now() }],
          containerStatuses: (containers as JsonObject[]).map((c) => ({
            name: c.name, image: c.image ?? '', ready: false, started: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } },
          })),
        };
      }
      if (!old && !obj.status) {
        const at = now();
        obj.status = {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }],
          podIP: `10.244.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0] % 254)}`,
          startTime: at,
          containerStatuses: (containers as JsonObject[]).map((c) => ({
            name: c.name, image: c.image ?? '', ready: true, started: true, restartCount: 0, state: { running: { startedAt: at } },
          })),
        };
      }
    }
    if (def.group === CRD_GROUP && def.plural === 'customresourcedefinitions') {
      const problems = crdProblems(obj);
      if (problems.length) {
        return invalid(def, obj.metadata.name, problems.map((m) => ({ field: m.split(':')[0], message: m, reason: 'FieldValueInvalid' })));
      }
      const spec = obj.spec as JsonObject;
      const names = spec.names as JsonObject;
      const clash = [...this.defs.values()].find(
        (d) => d.group === spec.group && d.plural === names.plural && d.crd !== obj.metadata.name,
      );
      if (clash) return fail(409, 'Conflict', `${names.plural}.${spec.group} is already served`);
      obj.status = crdStatus(obj);
    }
    return undefined;
  }

  /** Defaulting, pruning and schema validation of a custom resource; error Result or warnings. */
  private checkSchema(def: ResourceDef, obj: KubeObject, opts: WriteOptions): Result | { warnings: string[] } {
    if (!def.schema) return { warnings: [] };
    const pruned: string[] = [];
    defaultAndPrune(obj as unknown as Json, def.schema, '', pruned, true);
    const mode = (opts.fieldValidation ?? 'Warn').toLowerCase();
    if (pruned.length && mode === 'strict') {
      return fail(
        400,
        'BadRequest',
        `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: strict decoding error: ${pruned.map((p) => `unknown field "${p}"`).join(', ')}`,
      );
    }
    const causes = validateAgainstSchema(obj, def.schema);
    if (causes.length) return invalid(def, obj.metadata.name, causes);
    return { warnings: mode === 'warn' ? pruned.map((p) => `unknown field "${p}"`) : [] };
  }

  create(def: ResourceDef, namespace: string | undefined, input: unknown, opts: WriteOptions = {}): Result {
    if (!isObject(input as Json)) return fail(400, 'BadRequest', 'the body of the request must be a JSON or YAML object');
    const obj = clone(input) as KubeObject;
    const meta = (isObject(obj.metadata as unknown as Json) ? obj.metadata : (obj.metadata = {} as KubeObject['metadata']));
    if (obj.kind !== undefined && obj.kind !== def.kind) {
      return fail(400, 'BadRequest', `the API version in the data (${obj.apiVersion}) does not match the expected API version (${gvString(def.group, def.version)}) or the kind (${obj.kind}) is not ${def.kind}`);
    }
    obj.apiVersion = gvString(def.group, def.version);
    obj.kind = def.kind;
    if (!meta.name && meta.generateName) {
      const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
      meta.name = meta.generateName + Array.from(randomBytes(5), (b) => alphabet[b % alphabet.length]).join('');
    }
    const nameProblem = invalidName(meta.name, def.plural === 'namespaces');
    if (nameProblem) return invalid(def, String(meta.name ?? ''), [{ field: 'metadata.name', message: `metadata.name: ${nameProblem}`, reason: 'FieldValueInvalid' }]);
    if (def.namespaced) {
      if (meta.namespace && namespace && meta.namespace !== namespace) {
        return fail(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = namespace ?? meta.namespace ?? 'default';
      if (!this.namespaceExists(meta.namespace)) {
        return fail(404, 'NotFound', `namespaces "${meta.namespace}" not found`, { name: meta.namespace, kind: 'namespaces' });
      }
    } else {
      delete meta.namespace;
    }
    const key = `${meta.namespace ?? ''}/${meta.name}`;
    if (this.bucket(def).has(key)) {
      return fail(409, 'AlreadyExists', `${qualified(def)} "${meta.name}" already exists`, { name: meta.name, group: def.group, kind: def.plural });
    }
    for (const f of ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'managedFields', 'selfLink']) {
      delete meta[f];
    }
    if (def.statusSubresource) delete obj.status;
    const metaCauses = metadataProblems(meta);
    if (metaCauses.length) return invalid(def, meta.name, metaCauses);
    const prepared = this.prepare(def, obj, undefined);
    if (prepared) return prepared;
    const checked = this.checkSchema(def, obj, opts);
    if ('code' in checked) return checked;
    meta.uid = randomUUID();
    meta.creationTimestamp = now();
    if (def.generation) meta.generation = 1;
    if (opts.dryRun) return { code: 201, body: obj, warnings: checked.warnings };
    meta.resourceVersion = this.bump();
    this.bucket(def).set(key, obj);
    if (def.group === CRD_GROUP && def.plural === 'customresourcedefinitions') this.registerCrd(obj);
    this.emit(def, 'ADDED', obj);
    return { code: 201, body: this.present(def, obj), warnings: checked.warnings };
  }

  private registerCrd(crd: KubeObject) {
    for (const d of [...this.defs.values()]) if (d.crd === crd.metadata.name) this.defs.delete(`${d.group}/${d.version}/${d.plural}`);
    for (const d of crdToDefs(crd)) this.register(d);
  }

  /**
   * Replace an object (PUT, and the last step of every patch). `subresource` 'status' takes only the status from
   * `input`; otherwise the stored status is kept when the kind has a status subresource.
   */
  update(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    input: unknown,
    opts: WriteOptions & { subresource?: string; rvChecked?: boolean } = {},
  ): Result {
    if (!isObject(input as Json)) return fail(400, 'BadRequest', 'the body of the request must be a JSON or YAML object');
    const ns = def.namespaced ? (namespace ?? '') : '';
    const key = `${ns}/${name}`;
    const current = this.bucket(def).get(key);
    if (!current) return notFound(def, name);
    const body = clone(input) as KubeObject;
    const meta = (isObject(body.metadata as unknown as Json) ? body.metadata : (body.metadata = {} as KubeObject['metadata']));
    if (meta.name !== undefined && meta.name !== name) {
      return fail(400, 'BadRequest', `the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    }
    if (def.namespaced && meta.namespace && meta.namespace !== ns) {
      return fail(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
    }
    if (!opts.rvChecked) {
      if (!meta.resourceVersion) {
        if (!def.unconditionalUpdate) {
          return invalid(def, name, [{ field: 'metadata.resourceVersion', message: 'metadata.resourceVersion: Invalid value: 0x0: must be specified for an update', reason: 'FieldValueInvalid' }]);
        }
      } else if (meta.resourceVersion !== current.metadata.resourceVersion) {
        return conflict(def, name);
      }
    }
    let next: KubeObject;
    if (opts.subresource === 'status') {
      next = clone(current);
      if (body.status === undefined) delete next.status;
      else next.status = body.status;
    } else {
      next = body;
      next.apiVersion = current.apiVersion;
      next.kind = def.kind;
      if (def.statusSubresource) {
        if (current.status === undefined) delete next.status;
        else next.status = clone(current.status);
      }
      // server-owned metadata survives whatever the client sent
      next.metadata = {
        ...meta,
        name,
        uid: current.metadata.uid,
        creationTimestamp: current.metadata.creationTimestamp,
      };
      if (def.namespaced) next.metadata.namespace = ns;
      else delete next.metadata.namespace;
      if (current.metadata.deletionTimestamp) next.metadata.deletionTimestamp = current.metadata.deletionTimestamp;
      else delete next.metadata.deletionTimestamp;
      delete next.metadata.managedFields;
      const metaCauses = metadataProblems(next.metadata);
      if (metaCauses.length) return invalid(def, name, metaCauses);
      const prepared = this.prepare(def, next, current);
      if (prepared) return prepared;
    }
    const checked = this.checkSchema(def, next, opts);
    if ('code' in checked) return checked;
    const comparable = (o: KubeObject, withStatus: boolean) => {
      const { metadata, status, ...rest } = o;
      return withStatus ? { ...rest, status } : rest;
    };
    if (def.generation) {
      next.metadata.generation = current.metadata.generation ?? 1;
      if (!deepEqual(comparable(next, !def.statusSubresource), comparable(current, !def.statusSubresource))) {
        next.metadata.generation += 1;
      }
    } else delete next.metadata.generation;
    next.metadata.resourceVersion = current.metadata.resourceVersion;
    if (deepEqual(next, current)) return { code: 200, body: this.present(def, current), warnings: checked.warnings };
    if (opts.dryRun) return { code: 200, body: next, warnings: checked.warnings };
    if (next.metadata.deletionTimestamp && !(next.metadata.finalizers ?? []).length) {
      // the last finalizer is gone: the pending deletion completes now
      this.bucket(def).delete(key);
      next.metadata.resourceVersion = this.bump();
      this.emit(def, 'DELETED', next, current);
      return { code: 200, body: this.present(def, next) };
    }
    next.metadata.resourceVersion = this.bump();
    this.bucket(def).set(key, next);
    if (def.group === CRD_GROUP && def.plural === 'customresourcedefinitions') this.registerCrd(next);
    this.emit(def, 'MODIFIED', next, current);
    return { code: 200, body: this.present(def, next), warnings: checked.warnings };
  }

  patch(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    contentType: string,
    patch: unknown,
    opts: WriteOptions & { subresource?: string; force?: boolean } = {},
  ): Result {
    const ns = def.namespaced ? (namespace ?? '') : '';
    const current = this.bucket(def).get(`${ns}/${name}`);
    const type = contentType.split(';')[0].trim().toLowerCase();
    if (type === 'application/apply-patch+yaml' && !current) {
      // server-side apply of a new object creates it
      if (isObject(patch as Json) && isObject((patch as JsonObject).metadata)) {
        const m = (patch as JsonObject).metadata as JsonObject;
        if (m.name !== undefined && m.name !== name) return fail(400, 'BadRequest', `the name of the object (${m.name}) does not match the name on the URL (${name})`);
      }
      const input = mergePatch({ metadata: { name } }, patch as Json);
      return this.create(def, namespace, input, opts);
    }
    if (!current) return notFound(def, name);
    const base = this.present(def, current) as unknown as Json;
    let patched: Json;
    try {
      switch (type) {
        case 'application/merge-patch+json':
          patched = mergePatch(base, patch as Json);
          break;
        case 'application/json-patch+json':
          patched = jsonPatch(base, patch);
          break;
        case 'application/strategic-merge-patch+json':
          if (def.schema) {
            return fail(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
          }
          patched = strategicMergePatch(base, patch as Json);
          break;
        case 'application/apply-patch+yaml':
          // without managed fields: the applied configuration is merged over the live object
          patched = mergePatch(base, patch as Json);
          break;
        default:
          return fail(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml${def.schema ? '' : ', application/strategic-merge-patch+json'}`);
      }
    } catch (err) {
      if (err instanceof PatchError) return fail(err.code, err.code === 400 ? 'BadRequest' : 'Invalid', err.message);
      throw err;
    }
    if (!isObject(patched)) return fail(422, 'Invalid', 'the patch does not produce an object');
    const rv = isObject(patched.metadata) ? patched.metadata.resourceVersion : undefined;
    if (rv !== undefined && rv !== null && rv !== current.metadata.resourceVersion) return conflict(def, name);
    return this.update(def, namespace, name, patched, { ...opts, rvChecked: true });
  }

  delete(
    def: ResourceDef,
    namespace: string | undefined,
    name: string,
    options: JsonObject | undefined,
    opts: WriteOptions = {},
  ): Result {
    const ns = def.namespaced ? (namespace ?? '') : '';
    const key = `${ns}/${name}`;
    const current = this.bucket(def).get(key);
    if (!current) return notFound(def, name);
    if (def.group === '' && def.plural === 'namespaces' && ['default', 'kube-system', 'kube-public'].includes(name)) {
      return fail(403, 'Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`, { name, kind: 'namespaces' });
    }
    const pre = isObject(options?.preconditions ?? null) ? (options!.preconditions as JsonObject) : undefined;
    if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) return conflict(def, name);
    if (pre?.uid && pre.uid !== current.metadata.uid) {
      return fail(409, 'Conflict', `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`);
    }
    if (opts.dryRun) return { code: 200, body: this.present(def, current) };
    if ((current.metadata.finalizers ?? []).length) {
      if (current.metadata.deletionTimestamp) return { code: 200, body: this.present(def, current) };
      const next = clone(current);
      next.metadata.deletionTimestamp = now();
      next.metadata.resourceVersion = this.bump();
      this.bucket(def).set(key, next);
      this.emit(def, 'MODIFIED', next, current);
      return { code: 200, body: this.present(def, next) };
    }
    this.removeNow(def, key, current);
    return {
      code: 200,
      body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group: def.group, kind: def.plural, uid: current.metadata.uid } },
    };
  }

  private removeNow(def: ResourceDef, key: string, current: KubeObject) {
    // dependants first: a namespace takes its objects along, a CRD its custom resources
    if (def.group === '' && def.plural === 'namespaces') {
      for (const d of this.uniqueStorageDefs()) {
        if (!d.namespaced) continue;
        for (const [k, o] of [...this.bucket(d).entries()]) {
          if (o.metadata.namespace === current.metadata.name) this.removeNow(d, k, o);
        }
      }
    }
    if (def.group === CRD_GROUP && def.plural === 'customresourcedefinitions') {
      const served = [...this.defs.values()].filter((d) => d.crd === current.metadata.name);
      if (served[0]) for (const [k, o] of [...this.bucket(served[0]).entries()]) this.removeNow(served[0], k, o);
      for (const d of served) this.defs.delete(`${d.group}/${d.version}/${d.plural}`);
      if (served[0]) this.data.delete(storageKey(served[0]));
    }
    this.bucket(def).delete(key);
    const gone = clone(current);
    gone.metadata.resourceVersion = this.bump();
    this.emit(def, 'DELETED', gone, current);
  }

  private uniqueStorageDefs(): ResourceDef[] {
    const seen = new Map<string, ResourceDef>();
    for (const d of this.defs.values()) if (!seen.has(storageKey(d))) seen.set(storageKey(d), d);
    return [...seen.values()];
  }

  /** For the RBAC authoriser: stored objects regardless of served version. */
  rbacSource() {
    return {
      list: (group: string, plural: string) => this.listRaw(group, plural),
      get: (group: string, plural: string, namespace: string | undefined, name: string) => {
        const d = this.anyDef(group, plural);
        if (!d) return undefined;
        return this.getRaw(group, plural, d.namespaced ? namespace : undefined, name);
      },
    };
  }
}

/** Send one history event to a watcher, translating it for the watcher's selectors like the watch cache does. */
function deliver(w: Watcher, ev: HistoryEvent) {
  if (ev.key !== w.key) return;
  const inNs = (o: KubeObject) => !w.namespace || o.metadata.namespace === w.namespace;
  const now = inNs(ev.obj) && w.matches(ev.obj);
  const before = ev.prev ? inNs(ev.prev) && w.matches(ev.prev) : false;
  if (ev.type === 'ADDED') {
    if (now) w.send('ADDED', ev.obj);
  } else if (ev.type === 'MODIFIED') {
    if (now && before) w.send('MODIFIED', ev.obj);
    else if (now) w.send('ADDED', ev.obj);
    else if (before) w.send('DELETED', ev.obj);
  } else if (now || before) {
    w.send('DELETED', ev.obj);
  }
}
