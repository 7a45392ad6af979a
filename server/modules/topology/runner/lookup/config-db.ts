import { jsonPath } from '../../../../lib/checks/util.js';
import { LookupError, type LookupContext } from '../types.js';
import { finishEntry } from './entry.js';
import { findConfigItems, type ConfigMatch, type ConfigRow } from './queries.js';
import { isObj, MAX_LOOKUP_RESULTS } from './results.js';

/**
 * Lookups in the catalog's config items. The reference's `configDB` check sends a free-form `query` to config-db;
 * here a `configDB` entry selects by `name`, `type` and `tags` (labels match too), so a topology editor cannot run
 * SQL as the console. A property's `configLookup` (`config: {name, type, tags}`, then `field` or `display`) reads one
 * item, as the reference's lookupConfig.
 */

type Obj = Record<string, unknown>;

function configMatch(path: string, v: unknown): ConfigMatch {
  if (!isObj(v)) throw new LookupError(`${path}: name, type or tags to select config items by`);
  const text = (k: string) => (typeof v[k] === 'string' && (v[k] as string).trim() ? (v[k] as string).trim() : undefined);
  const tags = isObj(v.tags) ? Object.fromEntries(Object.entries(v.tags).map(([k, x]) => [k, String(x)])) : undefined;
  const m = { name: text('name'), type: text('type'), tags };
  if (!m.name && !m.type && !tags) throw new LookupError(`${path}: name, type or tags to select config items by`);
  return m;
}

/** A config item as a lookup sees it: its columns, `config` being the scraped document. */
const asData = (r: ConfigRow): Obj => ({ ...r });

/** `configDB: [{name?, type?, tags?}]`: the matching items (display over `results`, as a check's rows). */
export async function lookupConfigDB(path: string, entry: Obj, ctx: LookupContext): Promise<unknown> {
  if (entry.query !== undefined) throw new LookupError(`${path}.query: free-form queries are not run; select config items by name, type and tags`);
  const t0 = performance.now();
  const rows = (await findConfigItems(ctx.db, configMatch(path, entry), MAX_LOOKUP_RESULTS + 1)).map(asData);
  if (rows.length > MAX_LOOKUP_RESULTS) throw new LookupError(`${path}: more than the ${MAX_LOOKUP_RESULTS.toLocaleString('en')} results a lookup may yield`);
  return finishEntry('configDB', path, entry, ctx, { results: rows, count: rows.length }, Math.round(performance.now() - t0), (d) => d.results);
}

/** A property's `configLookup`: the first matching item's `field` (a JSONPath into its config), or its display. */
export async function lookupConfigProperty(path: string, spec: Obj, ctx: LookupContext): Promise<unknown> {
  const t0 = performance.now();
  const m = configMatch(`${path}.config`, spec.config);
  const [row] = await findConfigItems(ctx.db, m, 1);
  if (!row) throw new LookupError(`${path}: no config item matches ${[m.type, m.name].filter(Boolean).join('/') || JSON.stringify(m.tags)}`);
  const field = typeof spec.field === 'string' && spec.field.trim() ? spec.field.trim() : undefined;
  const entry: Obj = { ...spec, name: typeof spec.name === 'string' ? spec.name : path };
  return finishEntry('configLookup', path, entry, ctx, asData(row), Math.round(performance.now() - t0),
    // a field's value is a value, never JSON text to parse again ("16.2" stays text): a list of it
    (d) => (field ? [jsonPath(d.config, field) ?? null] : null));
}
