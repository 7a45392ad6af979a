import { createHash, randomUUID } from 'node:crypto';
import { celFunc, celMethod, CelScalar, isCelList, isCelMap, isCelUint, listType, mapType, objectType } from '@bufbuild/cel';
import { create, isMessage } from '@bufbuild/protobuf';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';
import { DurationSchema, TimestampSchema, timestampDate, timestampFromDate, type Duration, type Timestamp } from '@bufbuild/protobuf/wkt';
import { humanBytes, humanDuration, semverCompare, semverMap, toJSON, toJSONPretty } from './go-template/gomplate-values.js';
import { goTimeParse } from './go-template/go-time.js';
import { title } from './go-template/funcs-gomplate.js';

/**
 * The reference's CEL helpers (flanksource/gomplate funcs/*_gen.go, cel.go; canary-checker api/context) that its
 * fixtures and docs use, beyond those in cel.ts. Each follows the Go source named beside it; the values come back as
 * CEL values (maps, lists, strings, durations, timestamps).
 */

/** What an expression may read besides its variables: the reference's contextual functions. */
export interface CelContext {
  /** The check's previous result, for `last_result()`; the reference's empty status when absent. */
  lastResult?: Record<string, unknown>;
  /**
   * The catalog's related items for `catalog.traverse(id, type, direction)` (duty query/config_traversal.go): items of
   * `type` (a `/`-separated chain) related to config `id`, as JSON objects; absent where no catalog is at hand.
   */
  traverse?: (id: string, type: string, direction: string) => Record<string, unknown>[];
  /**
   * A playbook run's actions for `getAction(name)` and `getLastAction()` (mission-control playbook/runner/cel.go): an
   * earlier action by name, and the one that ran last, each as {name, status, result, error, …}; an empty map when
   * there is none (as the reference's templates answer).
   */
  getAction?: (name: string) => Record<string, unknown> | undefined;
  lastAction?: Record<string, unknown>;
}

/** The context of the evaluation under way, for functions defined outside this file. */
export function celContext(): CelContext {
  return current;
}

/** The context of the evaluation under way (evaluation is synchronous, so one at a time). */
let current: CelContext = {};

/** Runs `fn` with `ctx` as the context `last_result()` reads. */
export function withCelContext<T>(ctx: CelContext, fn: () => T): T {
  const before = current;
  current = ctx;
  try {
    return fn();
  } finally {
    current = before;
  }
}

/** canary-checker api/context/functions.go: the status of a check with no previous result. */
const EMPTY_LAST_RESULT = { status: '', invalid: false, createdAt: null, duration: 0, message: '', error: '', results: {} };

const NANOS_PER_SECOND = 1_000_000_000n;
const DURATION = objectType(DurationSchema);
const TIMESTAMP = objectType(TimestampSchema);

function durationNanos(d: Duration): bigint {
  return d.seconds * NANOS_PER_SECOND + BigInt(d.nanos);
}

function durationFromNanos(ns: bigint): Duration {
  return create(DurationSchema, { seconds: ns / NANOS_PER_SECOND, nanos: Number(ns % NANOS_PER_SECOND) });
}

export function asMessage<T>(v: unknown, schema: typeof DurationSchema | typeof TimestampSchema): T | undefined {
  if (isReflectMessage(v, schema as never)) return (v as unknown as { message: T }).message;
  if (isMessage(v, schema as never)) return v as T;
  return undefined;
}

/** A CEL value as plain JSON-like data: ints as numbers, timestamps as RFC 3339, durations as nanoseconds (Go's JSON). */
/**
 * A CEL list's items, walked without recursion: `map` over n items builds n nested concatenations, and spreading
 * that goes n generators deep, a stack overflow near 10,000 items (a topology lookup's `json.map(...)`).
 */
function celListItems(list: Iterable<unknown>): unknown[] {
  const out: unknown[] = [];
  const stack: unknown[] = [list];
  while (stack.length) {
    const l = stack.pop() as Iterable<unknown> & { _lists?: unknown[] };
    if (Array.isArray(l._lists)) {
      for (let i = l._lists.length - 1; i >= 0; i--) stack.push(l._lists[i]);
      continue;
    }
    for (const x of l) out.push(x);
  }
  return out;
}

export function celToNative(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (isCelUint(v)) return Number(v.value);
  if (isCelList(v)) return celListItems(v).map(celToNative);
  if (isCelMap(v)) return Object.fromEntries([...v.entries()].map(([k, x]) => [String(k), celToNative(x)]));
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  const ts = asMessage<Timestamp>(v, TimestampSchema);
  if (ts) return timestampDate(ts).toISOString();
  const d = asMessage<Duration>(v, DurationSchema);
  if (d) return Number(durationNanos(d));
  return v;
}

function sha(alg: string) {
  return celFunc(`crypto.${alg.toUpperCase().replace('-', '')}`, [CelScalar.STRING], CelScalar.STRING, (s) => createHash(alg).update(s).digest('hex'));
}

const MAP = mapType(CelScalar.STRING, CelScalar.DYN);
const LIST = listType(CelScalar.DYN);

export const REFERENCE_EXTRA_FUNCS = [
  // funcs/strings.go HumanDuration passes the CEL value itself, so only a duration is humanized ("" for a number)
  celFunc('HumanDuration', [CelScalar.DYN], CelScalar.STRING, (v) => {
    const d = asMessage<Duration>(v, DurationSchema);
    return d ? humanDuration(durationNanos(d)) : '';
  }),
  celFunc('HumanSize', [CelScalar.DYN], CelScalar.STRING, (v) => humanBytes(isCelUint(v) ? v.value : v)),
  celFunc('SemverCompare', [CelScalar.STRING, CelScalar.STRING], CelScalar.BOOL, (c, v) => semverCompare(c, v)),
  celFunc('Semver', [CelScalar.STRING], MAP, (v) => semverMap(v) as never),
  // funcs/data_gen.go: toJSON / toJSONPretty on any value, JSON / JSONArray from a string (method or function)
  celMethod('toJSON', CelScalar.DYN, [], CelScalar.STRING, function () {
    return toJSON(celToNative(this));
  }),
  celMethod('toJSONPretty', CelScalar.DYN, [CelScalar.STRING], CelScalar.STRING, function (indent) {
    return toJSONPretty(indent, celToNative(this));
  }),
  celFunc('toJSON', [CelScalar.DYN], CelScalar.STRING, (v) => toJSON(celToNative(v))),
  celMethod('JSON', CelScalar.STRING, [], CelScalar.DYN, function () {
    return parseJson(this, 'map');
  }),
  celFunc('JSON', [CelScalar.STRING], CelScalar.DYN, (s) => parseJson(s, 'map')),
  celMethod('JSONArray', CelScalar.STRING, [], LIST, function () {
    return parseJson(this, 'list') as never;
  }),
  celFunc('JSONArray', [CelScalar.STRING], LIST, (s) => parseJson(s, 'list') as never),
  // funcs/coll.go (CEL forms): merge lets the argument win, pick and omit select keys, values in key order
  celMethod('merge', MAP, [MAP], MAP, function (other) {
    return { ...(celToNative(this) as object), ...(celToNative(other) as object) } as never;
  }),
  celMethod('pick', MAP, [listType(CelScalar.STRING)], MAP, function (keys) {
    const o = celToNative(this) as Record<string, unknown>;
    return Object.fromEntries([...keys].map(String).filter((k) => Object.hasOwn(o, k)).map((k) => [k, o[k]])) as never;
  }),
  celMethod('omit', MAP, [listType(CelScalar.STRING)], MAP, function (keys) {
    const drop = new Set([...keys].map(String));
    return Object.fromEntries(Object.entries(celToNative(this) as object).filter(([k]) => !drop.has(k))) as never;
  }),
  celMethod('values', mapType(CelScalar.DYN, CelScalar.DYN), [], LIST, function () {
    return [...this.keys()].sort().map((k) => this.get(k)) as never;
  }),
  // cel-go ext.Lists: slice(start, end), flatten(); and the gomplate list helpers sum / min / max
  celMethod('slice', LIST, [CelScalar.INT, CelScalar.INT], LIST, function (start, end) {
    const items = [...this];
    if (start < 0n || end < start || end > BigInt(items.length)) throw new Error(`cannot slice(${start}, ${end}) a list of ${items.length}`);
    return items.slice(Number(start), Number(end)) as never;
  }),
  celMethod('flatten', LIST, [], LIST, function () {
    return [...this].flatMap((x) => (isCelList(x) ? [...x] : [x])) as never;
  }),
  celMethod('sum', LIST, [], CelScalar.DYN, function () {
    const items = [...this];
    if (items.every((x) => typeof x === 'bigint')) return (items as bigint[]).reduce((a, b) => a + b, 0n);
    return items.reduce<number>((a, b) => a + Number(celToNative(b)), 0);
  }),
  ...(['min', 'max'] as const).map((name) => celMethod(name, LIST, [], CelScalar.DYN, function () {
    const items = [...this];
    if (!items.length) throw new Error(`${name}(): empty list`);
    return items.reduce((a, b) => ((name === 'min' ? (b as number) < (a as number) : (b as number) > (a as number)) ? b : a)) as never;
  })),
  // funcs/strings.go CEL methods manifests use
  celMethod('title', CelScalar.STRING, [], CelScalar.STRING, function () {
    return title(this);
  }),
  celMethod('trimPrefix', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (p) {
    return this.startsWith(p) ? this.slice(p.length) : this;
  }),
  celMethod('trimSuffix', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (s) {
    return s && this.endsWith(s) ? this.slice(0, -s.length) : this;
  }),
  celMethod('quote', CelScalar.STRING, [], CelScalar.STRING, function () {
    return JSON.stringify(this);
  }),
  celMethod('squote', CelScalar.STRING, [], CelScalar.STRING, function () {
    return `'${this.replaceAll("'", "''")}'`;
  }),
  celMethod('repeat', CelScalar.STRING, [CelScalar.INT], CelScalar.STRING, function (n) {
    if (n < 0n || BigInt(this.length) * n > 1_000_000n) throw new Error('repeat: bad count');
    return this.repeat(Number(n));
  }),
  celMethod('reverse', CelScalar.STRING, [], CelScalar.STRING, function () {
    return [...this].reverse().join('');
  }),
  celMethod('runeCount', CelScalar.STRING, [], CelScalar.INT, function () {
    return BigInt([...this].length);
  }),
  // funcs/aws.go, under both names the reference registers (cloudwatch fixtures label alarms with fromAWSMap)
  ...['aws.fromAWSMap', 'fromAWSMap'].map((name) => celFunc(name, [listType(MAP)], MAP, (list) => Object.fromEntries(
    [...list].map((item) => celToNative(item) as Record<string, unknown>).map((m) => [String(m.Name ?? ''), m.Value ?? '']),
  ) as never)),
  ...['aws.arnToMap', 'arnToMap'].map((name) => celFunc(name, [CelScalar.STRING], MAP, (arn) => {
    const parts = arn.split(':');
    if (parts.length < 6) throw new Error(`${name}: invalid ARN "${arn}"`);
    return { service: parts[2], region: parts[3], account: parts[4], resource: parts[5] } as never;
  })),
  // funcs/time_gen.go
  celFunc('time.Now', [], TIMESTAMP, () => timestampFromDate(new Date())),
  celFunc('time.Since', [TIMESTAMP], DURATION, (t) => {
    const ms = Date.now() - timestampDate(asMessage<Timestamp>(t, TimestampSchema)!).getTime();
    return durationFromNanos(BigInt(ms) * 1_000_000n);
  }),
  celFunc('time.Parse', [CelScalar.STRING, CelScalar.DYN], TIMESTAMP, (layout, v) => timestampFromDate(goTimeParse(layout, String(celToNative(v))))),
  celFunc('time.ZoneName', [], CelScalar.STRING, () => new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(new Date()).find((p) => p.type === 'timeZoneName')?.value ?? 'UTC'),
  celFunc('time.ZoneOffset', [], CelScalar.INT, () => BigInt(-new Date().getTimezoneOffset() * 60)),
  // funcs/uuid_gen.go, funcs/crypto_gen.go, cel-go ext.Encoders
  celFunc('uuid.V4', [], CelScalar.STRING, () => randomUUID()),
  celFunc('uuid.IsValid', [CelScalar.STRING], CelScalar.BOOL, (s) => /^(urn:uuid:)?\{?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\}?$/i.test(s)),
  sha('sha1'), sha('sha224'), sha('sha256'), sha('sha384'), sha('sha512'),
  celFunc('base64.encode', [CelScalar.BYTES], CelScalar.STRING, (b) => Buffer.from(b).toString('base64')),
  celFunc('base64.decode', [CelScalar.STRING], CelScalar.BYTES, (s) => new Uint8Array(Buffer.from(s, 'base64'))),
  // canary-checker api/context/functions.go: the check's previous result
  celFunc('last_result', [], CelScalar.DYN, () => (current.lastResult ?? EMPTY_LAST_RESULT) as never),
  // mission-control playbook/runner/cel.go: a run's earlier actions
  celFunc('getAction', [CelScalar.STRING], CelScalar.DYN, (name) => (current.getAction?.(name) ?? {}) as never),
  celFunc('getLastAction', [], CelScalar.DYN, () => (current.lastAction ?? {}) as never),
  // an optional's orValue on a value that is not optional: the value itself (see cel-optional.ts)
  celMethod('orValue', CelScalar.DYN, [CelScalar.DYN], CelScalar.DYN, function () {
    return this as never;
  }),
];

function parseJson(s: string, want: 'map' | 'list'): never {
  let out: unknown;
  try {
    out = JSON.parse(s);
  } catch (err) {
    throw new Error(`${want === 'map' ? 'JSON' : 'JSONArray'}: ${(err as Error).message}`);
  }
  const isList = Array.isArray(out);
  if ((want === 'list') !== isList || out === null || typeof out !== 'object') throw new Error(`${want === 'map' ? 'JSON' : 'JSONArray'}: not a JSON ${want === 'map' ? 'object' : 'array'}`);
  return out as never;
}

