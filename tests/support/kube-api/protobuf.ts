/**
 * Decoding of the Kubernetes protobuf envelope for the few kinds that kubectl's imperative commands send as protobuf
 * (`kubectl create namespace|configmap|secret|serviceaccount|role|clusterrole|rolebinding|clusterrolebinding`):
 * client-go's typed clients use protobuf for built-in kinds and do not fall back to JSON on 415.
 *
 * Wire format: the magic `k8s\0`, then a `runtime.Unknown` message {1: TypeMeta{1: apiVersion, 2: kind}, 2: raw
 * object bytes, 3: contentEncoding, 4: contentType}; the object is the Go type's generated.proto message. Field numbers
 * below are those of k8s.io/api and k8s.io/apimachinery generated.proto. Empty values are dropped (JSON omitempty).
 */

type FieldType =
  | 'string'
  | 'bytes'
  | 'bool'
  | 'int'
  | { msg: Schema }
  | { map: 'string' | 'bytes' }
  | { repeated: 'string' | { msg: Schema } };
type Schema = Record<number, [string, FieldType]>;

const OWNER_REFERENCE: Schema = {
  1: ['kind', 'string'],
  3: ['name', 'string'],
  4: ['uid', 'string'],
  5: ['apiVersion', 'string'],
  6: ['controller', 'bool'],
  7: ['blockOwnerDeletion', 'bool'],
};
const OBJECT_META: Schema = {
  1: ['name', 'string'],
  2: ['generateName', 'string'],
  3: ['namespace', 'string'],
  5: ['uid', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['generation', 'int'],
  11: ['labels', { map: 'string' }],
  12: ['annotations', { map: 'string' }],
  13: ['ownerReferences', { repeated: { msg: OWNER_REFERENCE } }],
  14: ['finalizers', { repeated: 'string' }],
};
const META: [string, FieldType] = ['metadata', { msg: OBJECT_META }];
const POLICY_RULE: Schema = {
  1: ['verbs', { repeated: 'string' }],
  2: ['apiGroups', { repeated: 'string' }],
  3: ['resources', { repeated: 'string' }],
  4: ['resourceNames', { repeated: 'string' }],
  5: ['nonResourceURLs', { repeated: 'string' }],
};
const SUBJECT: Schema = { 1: ['kind', 'string'], 2: ['apiGroup', 'string'], 3: ['name', 'string'], 4: ['namespace', 'string'] };
const ROLE_REF: Schema = { 1: ['apiGroup', 'string'], 2: ['kind', 'string'], 3: ['name', 'string'] };
const BINDING: Schema = { 1: META, 2: ['subjects', { repeated: { msg: SUBJECT } }], 3: ['roleRef', { msg: ROLE_REF }] };
const LABEL_SELECTOR: Schema = { 1: ['matchLabels', { map: 'string' }] };

const KINDS: Record<string, Schema> = {
  'v1/Namespace': { 1: META, 2: ['spec', { msg: { 1: ['finalizers', { repeated: 'string' }] } }] },
  'v1/ConfigMap': { 1: META, 2: ['data', { map: 'string' }], 3: ['binaryData', { map: 'bytes' }], 4: ['immutable', 'bool'] },
  'v1/Secret': { 1: META, 2: ['data', { map: 'bytes' }], 3: ['type', 'string'], 4: ['stringData', { map: 'string' }], 5: ['immutable', 'bool'] },
  'v1/ServiceAccount': {
    1: META,
    3: ['imagePullSecrets', { repeated: { msg: { 1: ['name', 'string'] } } }],
    4: ['automountServiceAccountToken', 'bool'],
  },
  'rbac.authorization.k8s.io/v1/Role': { 1: META, 2: ['rules', { repeated: { msg: POLICY_RULE } }] },
  'rbac.authorization.k8s.io/v1/ClusterRole': {
    1: META,
    2: ['rules', { repeated: { msg: POLICY_RULE } }],
    3: ['aggregationRule', { msg: { 1: ['clusterRoleSelectors', { repeated: { msg: LABEL_SELECTOR } }] } }],
  },
  'rbac.authorization.k8s.io/v1/RoleBinding': BINDING,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': BINDING,
};

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  get done() {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  }
  bytes(): Buffer {
    const len = Number(this.varint());
    if (this.pos + len > this.buf.length) throw new Error('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  skip(wire: number) {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

/** Raw fields of a message: field number → list of values (varint as bigint, length-delimited as Buffer). */
function fields(buf: Buffer): Map<number, Array<bigint | Buffer>> {
  const r = new Reader(buf);
  const out = new Map<number, Array<bigint | Buffer>>();
  while (!r.done) {
    const key = Number(r.varint());
    const no = key >>> 3;
    const wire = key & 7;
    let v: bigint | Buffer | undefined;
    if (wire === 0) v = r.varint();
    else if (wire === 2) v = r.bytes();
    else r.skip(wire);
    if (v !== undefined) out.set(no, [...(out.get(no) ?? []), v]);
  }
  return out;
}

function decodeMessage(buf: Buffer, schema: Schema): Record<string, unknown> {
  const raw = fields(buf);
  const out: Record<string, unknown> = {};
  for (const [no, values] of raw) {
    const spec = schema[no];
    if (!spec) continue;
    const [name, type] = spec;
    const last = values[values.length - 1];
    if (type === 'string') {
      const s = (last as Buffer).toString('utf8');
      if (s !== '') out[name] = s;
    } else if (type === 'bytes') {
      out[name] = (last as Buffer).toString('base64');
    } else if (type === 'bool') {
      out[name] = last !== 0n;
    } else if (type === 'int') {
      if (last !== 0n) out[name] = Number(BigInt.asIntN(64, last as bigint));
    } else if ('msg' in type) {
      const m = decodeMessage(last as Buffer, type.msg);
      if (Object.keys(m).length) out[name] = m;
    } else if ('map' in type) {
      const m: Record<string, string> = {};
      for (const entry of values as Buffer[]) {
        const e = fields(entry);
        const k = (e.get(1)?.[0] as Buffer | undefined)?.toString('utf8') ?? '';
        const v = (e.get(2)?.[0] as Buffer | undefined) ?? Buffer.alloc(0);
        m[k] = type.map === 'bytes' ? v.toString('base64') : v.toString('utf8');
      }
      if (Object.keys(m).length) out[name] = m;
    } else if ('repeated' in type) {
      const item = type.repeated;
      const list = (values as Buffer[]).map((v) => (item === 'string' ? v.toString('utf8') : decodeMessage(v, item.msg)));
      if (list.length) out[name] = list;
    }
  }
  return out;
}

export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Decode a `application/vnd.kubernetes.protobuf` body into the JSON object, or throw with a reason. */
export function decodeKubeProtobuf(body: Buffer): Record<string, unknown> {
  if (body.length < 4 || !body.subarray(0, 4).equals(PROTOBUF_MAGIC)) throw new Error('missing the k8s protobuf prefix');
  const unknown = fields(body.subarray(4));
  const typeMeta = fields((unknown.get(1)?.[0] as Buffer | undefined) ?? Buffer.alloc(0));
  const apiVersion = (typeMeta.get(1)?.[0] as Buffer | undefined)?.toString('utf8') ?? '';
  const kind = (typeMeta.get(2)?.[0] as Buffer | undefined)?.toString('utf8') ?? '';
  const schema = KINDS[`${apiVersion}/${kind}`];
  if (!schema) throw new Error(`protobuf is not supported for ${kind || 'this kind'} (${apiVersion}); send JSON`);
  const raw = (unknown.get(2)?.[0] as Buffer | undefined) ?? Buffer.alloc(0);
  return { apiVersion, kind, ...decodeMessage(raw, schema) };
}
