import { z } from 'zod';

// the spec's YAML and labels are every settings editor's; the ones importing them from here keep doing so
export { labelsOf, specToYaml, yamlToSpec } from '../settings-resources/spec-yaml';

type Spec = Record<string, unknown>;
type Entry = Record<string, unknown>;

/** A scraper spec type (spec 001 §3 "Scraper spec types"): its key in the ScrapeConfig spec and its tile. */
export interface ScraperKind {
  /** The spec key (`spec.kubernetes[]`), or `custom` for the raw spec. */
  key: string;
  label: string;
  description: string;
  /** This console runs it; the server refuses the others at save ("the aws scraper is not supported"). */
  supported: boolean;
  /** The first entry of a new scraper of this type. */
  entry: Entry;
}

/**
 * Spec 001 §3's eleven types, in its order; kubernetes, file, http and sql run here, custom is the Code tab. Each
 * item needs an id: the file, http and sql templates read `id` and `name` from the item (JSONPath), as config-db's
 * examples do; the Code tab changes them.
 */
export const SCRAPER_KINDS: readonly ScraperKind[] = [
  { key: 'kubernetes', label: 'Kubernetes', description: 'Objects of the cluster', supported: true, entry: { clusterName: 'local' } },
  { key: 'azure', label: 'Azure', description: 'Azure resources', supported: false, entry: {} },
  { key: 'kubernetesFile', label: 'Kubernetes File', description: 'Files inside pods', supported: false, entry: {} },
  { key: 'sql', label: 'SQL', description: 'Rows of a SQL query', supported: true, entry: { type: 'SQL', id: '$.id', name: '$.name', connection: '', driver: 'postgres', query: '' } },
  { key: 'trivy', label: 'Trivy', description: 'Vulnerability scans', supported: false, entry: {} },
  { key: 'aws', label: 'AWS', description: 'AWS resources', supported: false, entry: {} },
  { key: 'file', label: 'File', description: 'JSON and YAML files on the server', supported: true, entry: { type: 'File', id: '$.id', name: '$.name', paths: [] } },
  { key: 'githubActions', label: 'GitHub Actions', description: 'Workflow runs', supported: false, entry: {} },
  { key: 'http', label: 'HTTP', description: 'JSON from an HTTP endpoint', supported: true, entry: { type: 'HTTP', id: '$.id', name: '$.name', url: '', method: 'GET' } },
  { key: 'azureDevops', label: 'Azure DevOps', description: 'Pipelines and runs', supported: false, entry: {} },
  { key: 'custom', label: 'Custom', description: 'Write the spec as YAML', supported: true, entry: {} },
];

/** The types the Form tab edits (each its first entry); anything else is edited in Code. */
export const FORM_TYPES = ['kubernetes', 'file', 'http', 'sql'] as const;
export type FormType = (typeof FORM_TYPES)[number];

/**
 * Spec 001 §5 schedule options, and `@never` (issue 12: run by Run now only); a scraper with another schedule keeps it
 * (offered as its own choice).
 */
export const SCHEDULES = ['@every 30s', '@every 1m', '@every 5m', '@every 15m', '@every 30m', '@hourly', '@every 2h', '@every 4h', '@every 6h', '@every 8h', '@daily', '@weekly', '@never'] as const;
export const DEFAULT_SCHEDULE = '@every 1h';
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export const SQL_DRIVERS = ['postgres', 'mysql'] as const;

const text = (max: number) => z.string().trim().max(max, 'Too long');
const required = (max: number) => text(max).min(1, 'This field is required');

/**
 * The Form tab's values (spec 001 §5: name and schedule required; per type its main fields). Lists are typed as one
 * per line so a path with a comma survives. A type's section is null when the spec has no entry of it.
 */
export const ScraperFormModel = z.object({
  name: required(253),
  namespace: text(253),
  schedule: required(100),
  labels: z.array(z.object({ key: z.string().trim(), value: z.string().trim() })),
  kubernetes: z.object({ clusterName: text(253), excludeKinds: text(4000), excludeNamespaces: text(4000), excludeNames: text(4000) }).nullable(),
  file: z.object({ paths: required(4000), ignore: text(4000) }).nullable(),
  http: z.object({ url: text(2048), connection: text(500), method: z.enum(HTTP_METHODS) }).nullable(),
  sql: z.object({ connection: required(2048), driver: z.enum(SQL_DRIVERS), query: required(20000) }).nullable(),
}).superRefine((f, ctx) => {
  // an HTTP scraper reads a URL or a connection's URL: one of the two
  if (f.http && !f.http.url && !f.http.connection) ctx.addIssue({ code: 'custom', path: ['http', 'url'], message: 'A URL or a connection is required' });
});
export type ScraperFormModel = z.infer<typeof ScraperFormModel>;

const isObj = (v: unknown): v is Entry => !!v && typeof v === 'object' && !Array.isArray(v);
const entries = (v: unknown): Entry[] => (Array.isArray(v) ? v.filter(isObj) : []);
const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(str).filter(Boolean) : typeof v === 'string' && v ? [v] : []);
const lines = (v: string): string[] => v.split('\n').map((l) => l.trim()).filter(Boolean);
const oneOf = <T extends string>(options: readonly T[], v: unknown, fallback: T): T =>
  (options as readonly string[]).includes(str(v).toUpperCase()) ? (str(v).toUpperCase() as T) : (options as readonly string[]).includes(str(v)) ? (str(v) as T) : fallback;

/** The scraper types a spec uses: its keys that are scraper lists (or `custom`), in spec 001 §3's order, then others. */
export function typesOf(spec: unknown): string[] {
  if (!isObj(spec)) return [];
  const known = SCRAPER_KINDS.map((k) => k.key).filter((k) => k in spec && (k === 'custom' || Array.isArray(spec[k])));
  // a reference manifest may carry scraper keys the tiles do not show (gcp, terraform…): listed, by their key
  const other = Object.keys(spec).filter((k) => !known.includes(k) && Array.isArray(spec[k]) && !NON_SCRAPER_KEYS.has(k));
  return [...known, ...other];
}
const NON_SCRAPER_KEYS = new Set(['schedule', 'retention', 'full', 'logLevel', 'timeout']);

export const kindOf = (key: string): ScraperKind | undefined => SCRAPER_KINDS.find((k) => k.key === key);
export const typeLabel = (key: string) => kindOf(key)?.label ?? key;

/** The spec a type tile starts: one entry of its type and the default schedule (custom: the schedule only). */
export function templateOf(kind: ScraperKind): Spec {
  return kind.key === 'custom' ? { schedule: DEFAULT_SCHEDULE } : { schedule: DEFAULT_SCHEDULE, [kind.key]: [{ ...kind.entry }] };
}

/** The Form tab's view of a scraper: its row's columns and the first entry of each type the form knows. */
export function toFormModel(meta: { name?: string | null; namespace?: string | null; labels?: Record<string, unknown> | null }, spec: Spec): ScraperFormModel {
  const first = (key: FormType) => entries(spec[key])[0] as Entry | undefined;
  const k = first('kubernetes');
  const f = first('file');
  const h = first('http');
  const q = first('sql');
  const ex = isObj(k?.exclusions) ? k.exclusions : {};
  return {
    name: meta.name ?? '',
    namespace: meta.namespace ?? '',
    schedule: str(spec.schedule),
    labels: Object.entries(meta.labels ?? {}).map(([key, value]) => ({ key, value: str(value) })),
    kubernetes: k
      ? { clusterName: str(k.clusterName), excludeKinds: strings(ex.kind).join('\n'), excludeNamespaces: strings(ex.namespace).join('\n'), excludeNames: strings(ex.name).join('\n') }
      : null,
    file: f ? { paths: strings(f.paths).join('\n'), ignore: strings(f.ignore).join('\n') } : null,
    http: h ? { url: str(h.url), connection: str(h.connection), method: oneOf(HTTP_METHODS, h.method || 'GET', 'GET') } : null,
    sql: q ? { connection: str(q.connection), driver: oneOf(SQL_DRIVERS, q.driver || 'postgres', 'postgres'), query: str(q.query) } : null,
  };
}

function setOrDrop(o: Entry, key: string, v: unknown) {
  if (v === undefined || v === '' || (Array.isArray(v) && !v.length) || (isObj(v) && !Object.keys(v).length)) delete o[key];
  else o[key] = v;
}

/** Replaces a list's first entry, keeping the others (the Form tab edits the first; Code edits all). */
function withFirst(list: unknown, entry: Entry): Entry[] {
  const rest = entries(list).slice(1);
  return [entry, ...rest];
}

/**
 * Folds the Form tab back into the spec: each type's first entry keeps the fields the form does not show (items,
 * transform, tags…); other entries, other types and the spec's other fields are untouched. A section the form
 * removed (null) removes that type's first entry.
 */
export function mergeFormIntoSpec(spec: Spec, f: ScraperFormModel): Spec {
  const out: Spec = { ...spec, schedule: f.schedule.trim() };
  const first = (key: FormType): Entry => ({ ...(entries(spec[key])[0] ?? {}) });
  const put = (key: FormType, entry: Entry | null) => {
    const list = entry ? withFirst(spec[key], entry) : entries(spec[key]).slice(1);
    setOrDrop(out, key, list);
  };
  if (f.kubernetes) {
    const e = first('kubernetes');
    setOrDrop(e, 'clusterName', f.kubernetes.clusterName.trim());
    const ex: Entry = { ...(isObj(e.exclusions) ? e.exclusions : {}) };
    setOrDrop(ex, 'kind', lines(f.kubernetes.excludeKinds));
    setOrDrop(ex, 'namespace', lines(f.kubernetes.excludeNamespaces));
    setOrDrop(ex, 'name', lines(f.kubernetes.excludeNames));
    setOrDrop(e, 'exclusions', ex);
    put('kubernetes', e);
  } else put('kubernetes', null);
  if (f.file) {
    const e = first('file');
    setOrDrop(e, 'paths', lines(f.file.paths));
    setOrDrop(e, 'ignore', lines(f.file.ignore));
    put('file', e);
  } else put('file', null);
  if (f.http) {
    const e = first('http');
    setOrDrop(e, 'url', f.http.url.trim());
    setOrDrop(e, 'connection', f.http.connection.trim());
    e.method = f.http.method;
    put('http', e);
  } else put('http', null);
  if (f.sql) {
    const e = first('sql');
    e.connection = f.sql.connection.trim();
    e.driver = f.sql.driver;
    e.query = f.sql.query.trim();
    put('sql', e);
  } else put('sql', null);
  return out;
}


/** Form paths the server's 400 may name (`spec.sql.0.query` → `sql.query`); only the first entry is in the form. */
const FORM_PATHS: Record<string, string> = {
  'kubernetes.0.clusterName': 'kubernetes.clusterName',
  'file.0.paths': 'file.paths',
  'file.0.ignore': 'file.ignore',
  'http.0.url': 'http.url',
  'http.0.connection': 'http.connection',
  'http.0.method': 'http.method',
  'sql.0.connection': 'sql.connection',
  'sql.0.driver': 'sql.driver',
  'sql.0.query': 'sql.query',
  schedule: 'schedule',
};

/**
 * A 400's `details` (`{ "spec.sql[0].query": "…" }`): the Form fields it names (shown at the field), and every
 * problem by the path the server named (listed above the form, so the Code tab shows them too).
 */
export function splitServerDetails(details: unknown): { fields: Record<string, string>; listed: string[] } {
  const fields: Record<string, string> = {};
  const listed: string[] = [];
  if (!isObj(details)) return { fields, listed };
  for (const [path, msg] of Object.entries(details)) {
    // the server names list entries with brackets (`spec.sql[0].query`); the form's map uses dots
    const bare = path.replace(/^spec\./, '').replace(/\[(\d+)\]/g, '.$1');
    const key = path === 'name' || path === 'namespace' ? path : FORM_PATHS[bare];
    if (key) fields[key] = str(msg);
    listed.push(`${path}: ${str(msg)}`);
  }
  return { fields, listed };
}
