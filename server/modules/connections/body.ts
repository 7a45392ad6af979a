import { CONNECTION_TYPES, NOTIFICATION_TYPES } from '../../contracts/connections.js';
import { isReference, isSecretProperty, MASK, referenceProblem, SECRET_COLUMNS } from '../../lib/connection-hydrate.js';
import { BadRequestError } from '../../lib/errors.js';

/**
 * What a write of a connection (POST or PATCH through /api/db, as the reference UI sends them) may hold, beyond the
 * generic settings rules: a known type, a well-formed url for the types that take one, secret fields that are a
 * static value or a reference with a name and a key, and `***` (what a read shows of a static secret) only where a
 * stored value exists to keep. Each refusal is a 400 naming the field; nothing is written.
 */

type Row = Record<string, unknown>;
const isObj = (v: unknown): v is Row => !!v && typeof v === 'object' && !Array.isArray(v);

const KNOWN_TYPES = new Set<string>(CONNECTION_TYPES);

/** Types whose url is an absolute URL (others hold a DSN, host:port or a host: postgres, redis, sftp...). */
const URL_TYPES = new Set<string>([
  'http', 'prometheus', 'elasticsearch', 'ldap', 'dynatrace', 'gitlab', 'github', 'azure_devops', 'mongo',
  ...NOTIFICATION_TYPES,
]);

const refuse = (field: string, problem: string): never => {
  throw new BadRequestError(`invalid Connection: ${field}: ${problem}`, { [field]: problem });
};

/**
 * The url as /api/db shows it: a static password in its userinfo reads `***` (0040_connections.sql's
 * connection_url_masked, the same pattern).
 */
export function maskUrl(url: string): string {
  return url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#@:]*:)(?!\$\()[^/?#@]+@/, '$1***@');
}

function checkUrl(type: string, url: unknown): void {
  if (url === undefined || url === null || url === '') return;
  if (typeof url !== 'string') return refuse('url', 'must be a string');
  const text: string = url;
  if (!URL_TYPES.has(type) || isReference(text)) return;
  // placeholders ($(password), $(host)) are filled when the connection is used: judge the URL around them
  const probe = text.replace(/\$\([A-Za-z0-9_.-]+\)/g, 'x');
  let ok = false;
  try {
    const u = new URL(probe);
    ok = /^[a-z][a-z0-9+.-]*:$/.test(u.protocol) && (u.host !== '' || !/^https?:$/.test(u.protocol));
  } catch {
    ok = false;
  }
  if (!ok) refuse('url', `not a valid URL for a ${type} connection (expected scheme://host...)`);
}

function checkSecret(field: string, v: unknown): void {
  if (v === undefined || v === null) return;
  if (typeof v !== 'string') refuse(field, 'must be a string');
  const problem = referenceProblem(v);
  if (problem) refuse(field, problem);
}

/**
 * A POST body (no `current`) or a PATCH (the stored row as `current`), checked and with every `***` that keeps a
 * stored value taken out (or put back, inside properties). Answers the columns to write.
 */
export function prepareConnection(body: Row, current?: Row): Row {
  const row: Row = { ...body };
  const type = String(('type' in row ? row.type : current?.type) ?? '');
  if ('type' in row || !current) {
    if (typeof row.type !== 'string' || !row.type) refuse('type', 'a connection type is required');
    if (!KNOWN_TYPES.has(row.type as string)) refuse('type', `unknown connection type '${String(row.type).slice(0, 60)}'`);
  }
  if ('insecure_tls' in row && row.insecure_tls !== null && typeof row.insecure_tls !== 'boolean') refuse('insecure_tls', 'must be true or false');

  for (const f of SECRET_COLUMNS) {
    if (!(f in row)) continue;
    if (row[f] === MASK) {
      // the read showed `***`: keep what is stored; there is nothing to keep on create
      if (!current) refuse(f, `'${MASK}' stands for a stored secret; a new connection needs the value or a reference`);
      delete row[f];
      continue;
    }
    checkSecret(f, row[f]);
  }

  if ('url' in row && typeof row.url === 'string') {
    const stored = typeof current?.url === 'string' ? current.url : null;
    // a url with `***` as its password is a read shown back: it keeps the stored url, and is refused where none is
    if (stored !== null && row.url === maskUrl(stored) && row.url !== stored) delete row.url;
    else if (row.url !== stored && /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#@:]*:\*\*\*@/.test(row.url)) {
      refuse('url', `'${MASK}' stands for a stored password; write the password or $(password)`);
    }
  }
  if ('url' in row) checkUrl(type, row.url);

  if ('properties' in row && row.properties !== null) {
    if (!isObj(row.properties)) refuse('properties', 'must be an object');
    const before = isObj(current?.properties) ? current.properties : {};
    const props: Row = { ...(row.properties as Row) };
    for (const [k, v] of Object.entries(props)) {
      if (v === MASK && isSecretProperty(k)) {
        if (!Object.hasOwn(before, k)) refuse(`properties.${k}`, `'${MASK}' stands for a stored secret; there is none to keep`);
        props[k] = before[k];
        continue;
      }
      if (typeof v === 'string') {
        const problem = referenceProblem(v);
        if (problem) refuse(`properties.${k}`, problem);
      }
    }
    row.properties = props;
  }
  return row;
}

/** The Connection spec a row describes, for the kind's schema (secrets as EnvVars). */
export function connectionSpecOf(r: Row): Row {
  const env = (v: unknown) => (typeof v === 'string' ? { value: v } : undefined);
  const spec: Row = { type: r.type };
  for (const f of ['url', 'username'] as const) if (env(r[f])) spec[f] = env(r[f]);
  if (typeof r.insecure_tls === 'boolean') spec.insecure_tls = r.insecure_tls;
  // properties are judged by prepareConnection: the forms send numbers (a port) where a CR holds strings
  return spec;
}
