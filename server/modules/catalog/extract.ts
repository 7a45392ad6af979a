import type { CommonScraper } from '../../contracts/catalog.js';
import { goTimeParse } from '../../lib/go-template/go-time.js';
import { applyTransforms, type TransformResult } from './extract-transform.js';
import { isJsonPath, jsonPathString, jsonPathValues } from './jsonpath.js';
import { runScript, scriptOf } from './transform-script.js';
import type { Health, ScrapedItem } from './types.js';

export { applyTransforms, type TransformResult } from './extract-transform.js';

/**
 * Parsed JSON documents (a file, an HTTP response, an SQL row) into catalog items, as config-db's JSON processor
 * does: `items` (JSONPath) splits a document into several, a script (`transform.javascript`, `gotemplate`, `expr` or
 * `jsonpath`: transform-script.ts) may rewrite a document into a list of items, then each item takes its `id`, `name`, `type`, `class`, `description`, `status`, `health`
 * (each a literal, or JSONPath when it starts with `$`), labels and tags, created/deleted times from
 * `createFields`/`deleteFields`, and the block's transforms (extract-transform.ts).
 *
 * A document or item that fails (a JSONPath selecting no id, a CEL error) is an error string naming its source;
 * the others are still returned.
 */

/** One parsed document and where it came from (a file path, a URL, `row 3`): errors name it. */
export interface SourceDocument {
  config: unknown;
  source: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const HEALTH = new Set<Health>(['healthy', 'unhealthy', 'warning', 'unknown']);

/** A field that is a literal or JSONPath (`$...`) read from the item's config; `undefined` when it gives nothing. */
function field(spec: string | undefined, config: unknown): string | undefined {
  if (!spec) return undefined;
  if (!isJsonPath(spec)) return spec;
  const v = jsonPathString(spec, config);
  return v === '' ? undefined : v;
}

/** The first of `fields` (JSONPath) that reads as a time: with `timestampFormat` (a Go layout) or RFC 3339, as config-db. */
function timeOf(fields: string[] | undefined, config: unknown, layout: string | undefined): Date | undefined {
  for (const f of fields ?? []) {
    const text = isJsonPath(f) ? jsonPathString(f, config) : undefined;
    if (!text) continue;
    let t = NaN;
    try {
      t = layout ? goTimeParse(layout, text).getTime() : Date.parse(text);
    } catch {
      // not in that layout: the next field may be
    }
    if (!Number.isNaN(t)) return new Date(t);
  }
  return undefined;
}

/** Fields a script's output may set on an item itself (config-db lifts them from the returned map). */
interface Lifted { id?: string; name?: string; type?: string; configClass?: string; description?: string; status?: string; aliases?: string[]; locations?: string[] }

function lift(v: Obj): Lifted {
  const s = (x: unknown) => (typeof x === 'string' && x !== '' ? x : undefined);
  const list = (x: unknown) => (Array.isArray(x) && x.every((e) => typeof e === 'string') ? x as string[] : undefined);
  return {
    id: s(v.id), name: s(v.name), type: s(v.config_type), configClass: s(v.config_class), description: s(v.description),
    status: s(v.status), aliases: list(v.aliases), locations: list(v.locations),
  };
}

function tagsOf(block: CommonScraper, config: unknown, labels: Record<string, string>): Record<string, string> {
  const tags: Record<string, string> = {};
  if (Array.isArray(block.tags)) {
    for (const t of block.tags) {
      const v = t.label ? labels[t.label] : t.jsonpath ? jsonPathString(t.jsonpath, config) : t.value;
      if (v) tags[t.name] = v;
    }
  } else if (isObj(block.tags)) {
    for (const [k, spec] of Object.entries(block.tags)) {
      const v = field(spec, config);
      if (v) tags[k] = v;
    }
  }
  return tags;
}

function buildItem(block: CommonScraper, config: unknown, lifted: Lifted, source: string): ScrapedItem {
  const externalId = lifted.id ?? field(block.id, config);
  if (!externalId) throw new Error(block.id ? `id ${block.id} selected nothing` : 'no id (set id, a literal or $.path)');
  const type = lifted.type ?? field(block.type, config);
  if (!type) throw new Error(block.type ? `type ${block.type} selected nothing` : 'no type (set type, a literal or $.path)');
  const labels: Record<string, string> = {};
  for (const [k, spec] of Object.entries(block.labels ?? {})) {
    const v = field(spec, config);
    if (v) labels[k] = v;
  }
  const tags = tagsOf(block, config, labels);
  const health = field(block.health, config)?.toLowerCase() as Health | undefined;
  const deletedAt = timeOf(block.deleteFields, config, block.timestampFormat);
  return {
    externalId,
    name: lifted.name ?? field(block.name, config) ?? externalId,
    type,
    configClass: lifted.configClass ?? field(block.class, config) ?? type,
    config,
    // as config-db: the tags are labels too (a label of the block wins over a tag of the same name)
    labels: { ...tags, ...labels },
    tags,
    description: lifted.description ?? field(block.description, config),
    status: lifted.status ?? field(block.status, config),
    aliases: lifted.aliases,
    locations: lifted.locations,
    health: health && HEALTH.has(health) ? health : undefined,
    createdAt: timeOf(block.createFields, config, block.timestampFormat),
    deletedAt,
    deleteReason: deletedAt ? 'delete field' : undefined,
    source,
  };
}

/** Items of one document: split by `items`, rewritten by the block's script, each built from the block's fields. */
async function itemsOf(block: CommonScraper, doc: SourceDocument, errors: string[]): Promise<ScrapedItem[]> {
  const script = scriptOf(block.transform);
  let parts: { config: unknown; source: string }[] = [doc];
  if (!block.items && !script && Array.isArray(doc.config)) {
    // a document that is a list (an API's JSON array) is a list of items; `items` or a script see it whole
    parts = doc.config.map((config, i) => ({ config, source: `${doc.source}[${i}]` }));
  } else if (block.items) {
    try {
      parts = jsonPathValues(block.items, doc.config).map((config, i) => ({ config, source: `${doc.source} items[${i}]` }));
    } catch (err) {
      errors.push(`${doc.source}: items ${block.items}: ${message(err)}`);
      return [];
    }
  }
  const out: ScrapedItem[] = [];
  for (const part of parts) {
    let configs: { config: unknown; lifted: Lifted; source: string }[] = [{ config: part.config, lifted: {}, source: part.source }];
    if (script) {
      try {
        const list = (await runScript(block.transform, part.config, part.source)) ?? [];
        configs = list.map((c, i) => ({ config: c, lifted: lift(c), source: `${part.source} ${script.kind}[${i}]` }));
      } catch (err) {
        errors.push(`${part.source}: transform.${script.kind}: ${message(err)}`);
        continue;
      }
    }
    for (const c of configs) {
      try {
        out.push(buildItem(block, c.config, c.lifted, c.source));
      } catch (err) {
        errors.push(`${c.source}: ${message(err)}`);
      }
    }
  }
  return out;
}

/**
 * Documents of one scraper block into items (and the relationships its transforms name). Async: a JavaScript
 * transform runs in the sandbox's worker thread.
 */
export async function extractDocuments(block: CommonScraper, docs: SourceDocument[]): Promise<TransformResult> {
  const errors: string[] = [];
  const items: ScrapedItem[] = [];
  for (const d of docs) items.push(...await itemsOf(block, d, errors));
  const t = applyTransforms(block, items);
  return { ...t, errors: [...errors, ...t.errors] };
}
