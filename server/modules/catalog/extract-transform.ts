import { createHash } from 'node:crypto';
import type { CommonScraper } from '../../contracts/catalog.js';
import { celToText, evalCel } from '../../lib/cel.js';
import { celToNative } from '../../lib/cel-funcs.js';
import { deleteAtPath, replaceAtPath } from './jsonpath.js';
import { cleanAliases, locationValues, propertiesOf } from './transform-templates.js';
import type { ItemRef, ScrapedChange, ScrapedItem, ScrapedRelationship } from './types.js';

/**
 * The transforms of a scraper block that apply to items already built (by extract.ts for file/http/sql, by the
 * kubernetes extractor for its objects): `transform.exclude` (fields dropped), `transform.mask` (values replaced by
 * a fixed text or their md5), `properties` (templated per item), `transform.locations` and `transform.aliases`
 * (transform-templates.ts), `transform.relationship` (links to items a selector names), and on the changes the
 * source reported, `transform.changes.mapping` (type, severity, summary, action) and `transform.changes.exclude`.
 *
 * A failing expression spoils one item or change only: it is an error string, the rest goes on (config-db stops the
 * whole scrape on such an error; one bad item should not hide the others).
 */

export interface TransformResult {
  items: ScrapedItem[];
  changes: ScrapedChange[];
  relationships: ScrapedRelationship[];
  errors: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const refText = (r: ItemRef) => `${r.type}/${r.externalId}`;

/** What CEL in a transform sees of an item (config-db's ScrapeResult.AsMap, the fields that matter). */
export function itemEnv(item: ScrapedItem): Obj {
  return {
    config: item.config ?? null,
    id: item.externalId,
    external_id: item.externalId,
    name: item.name,
    type: item.type,
    config_type: item.type,
    config_class: item.configClass,
    class: item.configClass,
    labels: item.labels ?? {},
    tags: item.tags ?? {},
    health: item.health ?? '',
    status: item.status ?? '',
    description: item.description ?? '',
    aliases: item.aliases ?? [],
    source: item.source ?? '',
  };
}

/** Whether a CEL expression holds; a result that is not a boolean is an error, as config-db's ParseBool. */
export function celTrue(expr: string, env: Obj): boolean {
  const out = evalCel(expr, env);
  if (typeof out === 'boolean') return out;
  const text = celToText(out);
  if (text === 'true' || text === 'false') return text === 'true';
  throw new Error(`expected a boolean, got ${text.slice(0, 60)}`);
}

/** `types` of an exclusion: exact or `*` globs (`AWS::*`), as config-db's MatchItems. */
function typeMatches(type: string, patterns: string[] | undefined): boolean {
  if (!patterns?.length) return true;
  return patterns.some((p) => (p.includes('*') ? new RegExp(`^${p.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(type) : p === type));
}

function md5(v: unknown): string {
  return createHash('md5').update(typeof v === 'string' ? v : JSON.stringify(v) ?? '').digest('hex');
}

/** Excludes and masks, in place on each item's config (the item is its scraper's own copy). */
function cleanItems(block: CommonScraper, items: ScrapedItem[], errors: string[]): ScrapedItem[] {
  const t = block.transform;
  if (!t?.exclude?.length && !t?.mask?.length) return items;
  const kept: ScrapedItem[] = [];
  for (const item of items) {
    try {
      for (const e of t.exclude ?? []) if (typeMatches(item.type, e.types)) deleteAtPath(e.jsonpath, item.config);
      for (const m of t.mask ?? []) {
        if (m.selector && !celTrue(m.selector, itemEnv(item))) continue;
        replaceAtPath(m.jsonpath, item.config, (v) => (m.value === 'md5sum' ? md5(v) : m.value));
      }
      kept.push(item);
    } catch (err) {
      errors.push(`${refText({ type: item.type, externalId: item.externalId })}: transform: ${message(err)}`);
    }
  }
  return kept;
}

const refKey = (r: ItemRef) => `${r.type}\u0000${r.externalId}`;

/**
 * `properties`, `transform.locations` and `transform.aliases`, in place on each item (after excludes and masks, so a
 * property never shows a value a mask hides). A failing filter or template is an error of the run; the item is kept:
 * a property that failed is left out, locations that failed leave the stored ones as they are, aliases stay as built.
 */
function templateItems(block: CommonScraper, items: ScrapedItem[], errors: string[]): void {
  const props = block.properties ?? [];
  const locations = block.transform?.locations ?? [];
  const aliases = block.transform?.aliases ?? [];
  if (!props.length && !locations.length && !aliases.length) return;
  const byRef = new Map(items.map((it) => [refKey({ type: it.type, externalId: it.externalId }), it]));
  for (const item of items) {
    const where = refText({ type: item.type, externalId: item.externalId });
    const env = itemEnv(item);
    const holds = (expr: string, on: Obj = env) => celTrue(expr, on);
    // `withParent`: the nearest ancestor of that type among this result's items
    const parentOf = (type: string) => {
      let ref = item.parent;
      for (let hops = 0; ref && hops < 50; hops++) {
        const p = byRef.get(refKey(ref));
        if (!p) return undefined;
        if (p.type === type) return itemEnv(p);
        ref = p.parent;
      }
      return undefined;
    };
    if (props.length) {
      const errs: string[] = [];
      const added = propertiesOf(props, env, holds, errs);
      errors.push(...errs.map((e) => `${where}: ${e}`));
      if (added.length) item.properties = [...(item.properties ?? []), ...added];
    }
    for (const [key, rules] of [['locations', locations], ['aliases', aliases]] as const) {
      if (!rules.length) continue;
      try {
        const { values, unresolved } = locationValues(rules, item.type, env, holds, parentOf);
        if (key === 'locations') item.locations = unresolved ? undefined : [...new Set(values)];
        else item.aliases = cleanAliases([...(item.aliases ?? []), ...values]).filter((a) => a !== item.externalId);
      } catch (err) {
        errors.push(`${where}: transform.${key}: ${message(err)}`);
        if (key === 'locations') item.locations = undefined;
      }
    }
  }
}

/** A Lookup's value: static, a CEL expression over the item, or one of its labels. */
function lookup(l: { value?: string; expr?: string; label?: string } | undefined, env: Obj, labels: Record<string, string>): string | undefined {
  if (!l) return undefined;
  if (l.value) return l.value;
  if (l.expr) {
    const text = celToText(evalCel(l.expr, env));
    return text || undefined;
  }
  if (l.label) return labels[l.label] || undefined;
  return undefined;
}

/** A selector as `transform.relationship[].expr` returns it, or a Lookup-built one: the item it names. */
function selectorRef(sel: Obj): ItemRef | string {
  const type = typeof sel.type === 'string' ? sel.type : undefined;
  const ext = [sel.external_id, sel.externalID, sel.id].find((v) => typeof v === 'string' && v !== '') as string | undefined;
  if (!type || !ext) return 'a relationship selector needs a type and an external_id (or id)';
  return { type, externalId: ext };
}

function relationshipsOf(block: CommonScraper, item: ScrapedItem, errors: string[]): ScrapedRelationship[] {
  const out: ScrapedRelationship[] = [];
  const self: ItemRef = { type: item.type, externalId: item.externalId };
  const env = itemEnv(item);
  (block.transform?.relationship ?? []).forEach((rule, i) => {
    const where = `${refText(self)}: transform.relationship.${i}`;
    try {
      if (rule.filter && !celTrue(rule.filter, env)) return;
      let selectors: Obj[];
      if (rule.expr) {
        let v = celToNative(evalCel(rule.expr, env));
        if (typeof v === 'string') v = JSON.parse(v);
        selectors = (Array.isArray(v) ? v : [v]).filter(isObj);
      } else {
        const labels = item.labels ?? {};
        const sel: Obj = {};
        for (const f of ['id', 'external_id', 'name', 'namespace', 'type'] as const) {
          const v = lookup(rule[f], env, labels);
          if (v !== undefined) sel[f] = v;
        }
        // a lookup that resolved to nothing means "no link for this item", as in config-db
        if (!Object.keys(sel).length) return;
        selectors = [sel];
      }
      for (const sel of selectors) {
        const ref = selectorRef(sel);
        if (typeof ref === 'string') {
          errors.push(`${where}: ${ref}`);
          continue;
        }
        out.push(rule.parent ? { from: ref, to: self, relation: 'soft' } : { from: self, to: ref, relation: 'soft' });
      }
    } catch (err) {
      errors.push(`${where}: ${message(err)}`);
    }
  });
  return out;
}

/** What CEL in `changes.mapping`/`changes.exclude` sees of a change: its fields, `change`, and its item. */
function changeEnv(change: ScrapedChange, item: ScrapedItem | undefined): Obj {
  const fields: Obj = {
    change_type: change.changeType,
    severity: change.severity ?? '',
    summary: change.summary ?? '',
    source: change.source ?? '',
    details: change.details ?? {},
    external_change_id: change.externalChangeId ?? '',
    external_id: change.item.externalId,
    config_type: change.item.type,
  };
  return { ...fields, change: fields, ...(item ? { config: item.config ?? null, name: item.name, config_class: item.configClass, labels: item.labels ?? {}, tags: item.tags ?? {} } : { config: null }) };
}

function mapChanges(block: CommonScraper, changes: ScrapedChange[], items: ScrapedItem[], errors: string[]): ScrapedChange[] {
  const rules = block.transform?.changes;
  if (!rules?.mapping?.length && !rules?.exclude?.length) return changes;
  const byRef = new Map(items.map((it) => [refText({ type: it.type, externalId: it.externalId }), it]));
  const out: ScrapedChange[] = [];
  for (const original of changes) {
    const change = { ...original };
    const where = `${refText(change.item)}: change ${change.changeType}`;
    try {
      const item = byRef.get(refText(change.item));
      if ((rules.exclude ?? []).some((e) => celTrue(e, changeEnv(change, item)))) continue;
      for (const m of rules.mapping ?? []) {
        if (m.filter && !celTrue(m.filter, changeEnv(change, item))) continue;
        if (m.type) change.changeType = m.type;
        if (m.severity) change.severity = m.severity;
        if (m.summary) change.summary = m.summary;
        if (m.action) change.action = m.action;
        if (m.config_type) change.item = { ...change.item, type: m.config_type };
      }
      out.push(change);
    } catch (err) {
      errors.push(`${where}: transform.changes: ${message(err)}`);
      out.push(original);
    }
  }
  return out;
}

/**
 * The block's transforms over built items and the changes their source reported. Items come back cleaned (excluded
 * fields dropped, masks applied); an item whose transform failed is left out with an error.
 */
export function applyTransforms(block: CommonScraper, items: ScrapedItem[], changes: ScrapedChange[] = []): TransformResult {
  const errors: string[] = [];
  const kept = cleanItems(block, items, errors);
  templateItems(block, kept, errors);
  const relationships = block.transform?.relationship?.length ? kept.flatMap((it) => relationshipsOf(block, it, errors)) : [];
  return { items: kept, changes: mapChanges(block, changes, kept, errors), relationships, errors };
}
