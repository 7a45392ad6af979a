/**
 * The three patch flavours the API server accepts: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and the
 * Kubernetes strategic merge patch. kubectl sends merge patches for custom resources and strategic merge patches for
 * built-in kinds (computed from its compiled-in Go structs), so the strategic flavour only needs the merge keys of
 * the built-in fields we host.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export class PatchError extends Error {
  constructor(
    message: string,
    readonly code = 422,
  ) {
    super(message);
  }
}

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export function clone<T>(v: T): T {
  return structuredClone(v);
}

/** RFC 7386: objects merge recursively, null deletes, anything else (arrays included) replaces. */
export function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return clone(patch);
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function unescapePointer(tok: string): string {
  return tok.replace(/~1/g, '/').replace(/~0/g, '~');
}

function parsePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new PatchError(`invalid JSON pointer "${path}"`);
  return path.slice(1).split('/').map(unescapePointer);
}

function getAt(doc: Json, tokens: string[]): Json | undefined {
  let cur: Json | undefined = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isObject(cur)) cur = Object.prototype.hasOwnProperty.call(cur, t) ? cur[t] : undefined;
    else return undefined;
  }
  return cur;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}
export { deepEqual };

/** RFC 6902, applied to a copy. A failed `test` or a missing path is a 422 like the real server. */
export function jsonPatch(doc: Json, ops: unknown): Json {
  if (!Array.isArray(ops)) throw new PatchError('json patch must be an array of operations', 400);
  let root = clone(doc);
  const parentOf = (tokens: string[], op: string) => {
    const parent = getAt(root, tokens.slice(0, -1));
    if (!Array.isArray(parent) && !isObject(parent)) {
      throw new PatchError(`${op} operation does not apply: doc is missing path: "/${tokens.join('/')}"`);
    }
    return parent;
  };
  const remove = (tokens: string[], op: string): Json => {
    const parent = parentOf(tokens, op);
    const last = tokens[tokens.length - 1];
    if (Array.isArray(parent)) {
      const i = Number(last);
      if (!Number.isInteger(i) || i < 0 || i >= parent.length) {
        throw new PatchError(`${op} operation does not apply: doc is missing path: "/${tokens.join('/')}"`);
      }
      return parent.splice(i, 1)[0];
    }
    if (!Object.prototype.hasOwnProperty.call(parent, last)) {
      throw new PatchError(`${op} operation does not apply: doc is missing path: "/${tokens.join('/')}"`);
    }
    const v = parent[last];
    delete parent[last];
    return v;
  };
  const add = (tokens: string[], value: Json, op: string) => {
    if (tokens.length === 0) {
      root = clone(value);
      return;
    }
    const parent = parentOf(tokens, op);
    const last = tokens[tokens.length - 1];
    if (Array.isArray(parent)) {
      const i = last === '-' ? parent.length : Number(last);
      if (!Number.isInteger(i) || i < 0 || i > parent.length) {
        throw new PatchError(`${op} operation does not apply: index out of range "/${tokens.join('/')}"`);
      }
      parent.splice(i, 0, clone(value));
    } else {
      parent[last] = clone(value);
    }
  };
  for (const raw of ops) {
    if (!isObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw new PatchError('each json patch operation needs "op" and "path"', 400);
    }
    const tokens = parsePointer(raw.path);
    switch (raw.op) {
      case 'add':
        add(tokens, raw.value as Json, 'add');
        break;
      case 'remove':
        remove(tokens, 'remove');
        break;
      case 'replace':
        if (getAt(root, tokens) === undefined) {
          throw new PatchError(`replace operation does not apply: doc is missing key: "${raw.path}"`);
        }
        if (tokens.length === 0) root = clone(raw.value as Json);
        else {
          remove(tokens, 'replace');
          add(tokens, raw.value as Json, 'replace');
        }
        break;
      case 'move':
      case 'copy': {
        if (typeof raw.from !== 'string') throw new PatchError(`${raw.op} operation needs "from"`, 400);
        const from = parsePointer(raw.from);
        const value = raw.op === 'move' ? remove(from, 'move') : clone(getAt(root, from));
        if (value === undefined) throw new PatchError(`copy operation does not apply: missing "${raw.from}"`);
        add(tokens, value, raw.op);
        break;
      }
      case 'test':
        if (!deepEqual(getAt(root, tokens), raw.value)) {
          throw new PatchError(`testing value ${raw.path} failed: test failed`);
        }
        break;
      default:
        throw new PatchError(`unknown json patch operation "${raw.op}"`, 400);
    }
  }
  return root;
}

/**
 * Merge keys of the list fields of the built-in kinds we serve (from the Go struct tags `patchMergeKey`). A list field
 * not named here is atomic: the patch replaces it, as the real server does for lists without a merge strategy.
 */
function mergeKeyFor(field: string, items: Json[]): string | undefined {
  switch (field) {
    case 'containers':
    case 'initContainers':
    case 'ephemeralContainers':
    case 'volumes':
    case 'env':
    case 'imagePullSecrets':
    case 'resourceClaims':
      return 'name';
    case 'volumeMounts':
      return 'mountPath';
    case 'volumeDevices':
      return 'devicePath';
    case 'hostAliases':
      return 'ip';
    case 'conditions':
      return 'type';
    case 'ownerReferences':
      return 'uid';
    case 'topologySpreadConstraints':
      return 'topologyKey';
    case 'ports':
      // container ports merge on containerPort, Service ports on port
      return items.some((i) => isObject(i) && 'containerPort' in i) ? 'containerPort' : 'port';
    default:
      return undefined;
  }
}

/** Primitive lists that merge as sets (`patchStrategy:"merge"` on a []string). */
const MERGED_PRIMITIVE_LISTS = new Set(['finalizers']);

/**
 * Strategic merge patch: a merge patch, except that lists of objects with a merge key merge element-wise, and the
 * `$patch`, `$retainKeys`, `$setElementOrder/<field>` and `$deleteFromPrimitiveList/<field>` directives apply.
 */
export function strategicMergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return clone(patch);
  if (patch.$patch === 'delete') return {};
  let out: JsonObject = isObject(target) ? { ...target } : {};
  if (patch.$patch === 'replace') {
    out = {};
  }
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      const cur = out[field];
      if (Array.isArray(cur) && Array.isArray(v)) out[field] = cur.filter((x) => !v.some((d) => deepEqual(d, x)));
      continue;
    }
    if (v === null) {
      delete out[k];
    } else if (Array.isArray(v)) {
      out[k] = mergeList(k, out[k], v, patch[`$setElementOrder/${k}`]);
    } else if (isObject(v)) {
      if (v.$patch === 'delete') delete out[k];
      else out[k] = strategicMergePatch(out[k], v);
    } else {
      out[k] = v;
    }
  }
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys.map(String));
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
  return out;
}

function mergeList(field: string, live: Json | undefined, patch: Json[], order: Json | undefined): Json[] {
  const current = Array.isArray(live) ? live : [];
  if (MERGED_PRIMITIVE_LISTS.has(field) && patch.every((x) => !isObject(x))) {
    const out = [...current];
    for (const x of patch) if (!out.some((y) => deepEqual(x, y))) out.push(x);
    return out;
  }
  const key = mergeKeyFor(field, [...current, ...patch]);
  if (!key || !patch.every(isObject)) {
    // atomic list; a `{$patch: replace}` marker element may be present
    return clone(patch.filter((x) => !(isObject(x) && x.$patch === 'replace' && Object.keys(x).length === 1)));
  }
  if (patch.some((x) => isObject(x) && x.$patch === 'replace')) {
    return clone(patch.filter((x) => !(isObject(x) && x.$patch === 'replace')));
  }
  const out: Json[] = current.map((x) => x);
  for (const item of patch as JsonObject[]) {
    const idx = out.findIndex((x) => isObject(x) && deepEqual(x[key], item[key]));
    if (item.$patch === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
    } else if (idx >= 0) {
      out[idx] = strategicMergePatch(out[idx], item);
    } else {
      out.push(strategicMergePatch({}, item));
    }
  }
  if (Array.isArray(order)) {
    const rank = (x: Json) => {
      const i = order.findIndex((o) => isObject(o) && isObject(x) && deepEqual(o[key], x[key]));
      return i < 0 ? Number.MAX_SAFE_INTEGER : i;
    };
    // stable sort: listed elements first in the given order, server-only ones keep their relative order
    return out.map((x, i) => ({ x, i })).sort((a, b) => rank(a.x) - rank(b.x) || a.i - b.i).map((e) => e.x);
  }
  return out;
}
