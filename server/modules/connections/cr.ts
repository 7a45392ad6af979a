import { isReference, parseKeyRef } from '../../lib/connection-hydrate.js';

/**
 * `Connection` custom resources (crds.md): besides the flat `type, url, username, password, certificate,
 * insecure_tls, port, properties`, a CR may describe itself with one typed block (`postgres: {url, username,
 * password}`, `http: {...}`, `slack: {token, channel}`, `aws: {accessKey, secretKey, region}` ...). The informer maps
 * either onto the row (columnsOfSpec); a console edit of a CR-sourced row is written back into the block it came from
 * (patchSpec), so `kubectl get` shows the change where its author wrote it.
 */

type Row = Record<string, unknown>;
const isObj = (v: unknown): v is Row => !!v && typeof v === 'object' && !Array.isArray(v);

/** crds.md's typed blocks, with the row type each one means where the console's name differs. */
export const TYPED_BLOCKS: Readonly<Record<string, string>> = {
  aws: 'aws', awskms: 'aws', azure: 'azure', azureDevops: 'azure_devops', azureKeyVault: 'azure', gcp: 'google_cloud',
  gcpkms: 'google_cloud', gcs: 'gcs', s3: 's3', http: 'http', git: 'git', github: 'github', gitlab: 'gitlab',
  kubernetes: 'kubernetes', postgres: 'postgres', mysql: 'mysql', mssql: 'sql_server', mongo: 'mongo', redis: 'redis',
  elasticsearch: 'elasticsearch', opensearch: 'elasticsearch', prometheus: 'prometheus', loki: 'loki', sftp: 'sftp',
  smb: 'smb', smtp: 'email', slack: 'slack', discord: 'discord', telegram: 'telegram', ntfy: 'ntfy',
  pushbullet: 'pushbullet', pushover: 'pushover', openai: 'openai', anthropic: 'anthropic', gemini: 'gemini',
  ollama: 'ollama', folder: 'folder', facet: 'facet',
};

/** Block keys that fill a column, by column, first match wins (a block's own name for it, then the usual aliases). */
const COLUMN_KEYS: Readonly<Record<string, readonly string[]>> = {
  url: ['url', 'connection', 'host', 'endpoint', 'webhook', 'path'],
  username: ['username', 'user', 'accessKey', 'clientID', 'email'],
  password: ['password', 'token', 'secretKey', 'clientSecret', 'apiKey', 'personalAccessToken', 'bearer', 'credentials'],
  certificate: ['certificate', 'kubeconfig', 'privateKey', 'sshPrivateKey', 'cert'],
};

/** The text an EnvVar (or a plain value) stands for in a column: its value, or its reference as `secret://name/key`. */
export function envVarText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (!isObj(v)) return null;
  if (typeof v.value === 'string') return v.value;
  const from = v.valueFrom;
  if (!isObj(from)) return null;
  const ref = (scheme: string, r: unknown) => `${scheme}://${isObj(r) ? String(r.name ?? '') : ''}/${isObj(r) ? String(r.key ?? '') : ''}`;
  if (from.secretKeyRef) return ref('secret', from.secretKeyRef);
  if (from.configMapKeyRef) return ref('configmap', from.configMapKeyRef);
  if (from.helmRef) return ref('helm', from.helmRef);
  if (typeof from.serviceAccount === 'string') return `serviceaccount://${from.serviceAccount}`;
  return null;
}

/** The typed block a spec uses (the first of TYPED_BLOCKS present as an object), or null for a flat spec. */
export function typedBlockOf(spec: Row): string | null {
  return Object.keys(TYPED_BLOCKS).find((k) => isObj(spec[k])) ?? null;
}

export interface ConnectionColumns {
  type: string;
  url: string | null;
  username: string | null;
  password: string | null;
  certificate: string | null;
  insecure_tls: boolean;
  properties: Row | null;
}

/** The row's columns for a Connection CR's spec: the flat fields, filled from the typed block where those are unset. */
export function columnsOfSpec(spec: Row): ConnectionColumns {
  const blockName = typedBlockOf(spec);
  const block = blockName ? (spec[blockName] as Row) : {};
  const used = new Set<string>();
  const pick = (column: string): string | null => {
    const flat = envVarText(spec[column]);
    if (flat !== null && flat !== '') return flat;
    for (const k of COLUMN_KEYS[column]) {
      if (used.has(k) || block[k] === undefined) continue;
      const t = envVarText(block[k]);
      if (t === null) continue;
      used.add(k);
      return t;
    }
    return null;
  };
  const cols = {
    url: pick('url'), username: pick('username'), password: pick('password'), certificate: pick('certificate'),
  };
  // the block's other fields (region, channel, bucket, database...) are the connection's properties
  const props: Row = isObj(spec.properties) ? { ...spec.properties } : {};
  for (const [k, v] of Object.entries(block)) {
    if (used.has(k) || k in props) continue;
    if (k === 'insecureTLS' || k === 'insecure_tls') continue;
    const t = envVarText(v);
    if (t !== null) props[k] = t;
    else if (isObj(v) || Array.isArray(v)) props[k] = v;
  }
  if (spec.port !== undefined && !('port' in props)) {
    const port = envVarText(spec.port);
    if (port !== null) props.port = port;
  }
  const insecure = spec.insecure_tls ?? block.insecureTLS ?? block.insecure_tls;
  const type = typeof spec.type === 'string' && spec.type ? spec.type : blockName ? TYPED_BLOCKS[blockName] : '';
  return { type, ...cols, insecure_tls: insecure === true, properties: Object.keys(props).length ? props : null };
}

/** A column's text as the CR's EnvVar: a reference becomes its valueFrom, anything else a value. */
export function envVarOf(text: string): Row {
  const ref = parseKeyRef(text);
  if (ref) return { valueFrom: { [ref.kind === 'secret' ? 'secretKeyRef' : 'configMapKeyRef']: { name: ref.name, key: ref.key } } };
  if (isReference(text) && text.toLowerCase().startsWith('helm://')) {
    const [name, key] = text.slice('helm://'.length).split('/');
    return { valueFrom: { helmRef: { name, key } } };
  }
  if (isReference(text)) return { valueFrom: { serviceAccount: text.slice('serviceaccount://'.length) } };
  return { value: text };
}

/**
 * The CR's spec after a console edit of its row (columns as /api/db names them; `***` already taken out): each
 * changed field goes where the spec holds it (the typed block's own key, else the flat field), null removes it.
 */
export function patchSpec(spec: Row, patch: Row): Row {
  const out: Row = { ...spec };
  const blockName = typedBlockOf(out);
  const block: Row | null = blockName ? { ...(out[blockName] as Row) } : null;
  for (const column of ['url', 'username', 'password', 'certificate'] as const) {
    if (!(column in patch)) continue;
    const v = patch[column];
    const inBlock = block && out[column] === undefined ? COLUMN_KEYS[column].find((k) => block[k] !== undefined) : undefined;
    const target = inBlock && block ? block : out;
    const key = inBlock ?? column;
    if (v === null || v === '') delete target[key];
    else target[key] = envVarOf(String(v));
  }
  if ('insecure_tls' in patch) out.insecure_tls = patch.insecure_tls === true;
  if ('type' in patch && typeof patch.type === 'string' && (out.type !== undefined || !blockName || TYPED_BLOCKS[blockName] !== patch.type)) {
    out.type = patch.type;
  }
  if ('properties' in patch) {
    if (isObj(patch.properties)) out.properties = Object.fromEntries(Object.entries(patch.properties).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    else delete out.properties;
  }
  if (block && blockName) out[blockName] = block;
  return out;
}
