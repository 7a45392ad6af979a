import type { ConfigPropertySpec, LocationOrAliasSpec } from '../../contracts/catalog.js';
import { goTemplateError, renderGoTemplate } from '../../lib/go-template.js';
import { matchItems } from './kubernetes/filters.js';

/**
 * The per-item templates of a block, as config-db's JSON processor applies them after an item is built:
 * `properties[]` (each text a Go template over the item, kept where `filter` holds) and `transform.locations[]` /
 * `transform.aliases[]` (values templated for items of a matching type where `filter` holds). Texts take `{{ }}` and
 * `$( )` templates, as config-db's (gomplate ValueFunctions, `{{tags.x}}` without the dot, are not). The CEL filters are
 * the caller's (extract-transform.ts holds the item's CEL environment); these take a predicate.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** duty's MatchExpression: comma-separated patterns (`AWS::*`, `!Kubernetes::Pod`); none matches every type. */
export function matchesTypeExpression(expr: string | undefined, type: string): boolean {
  const patterns = (expr ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  return matchItems(type, patterns);
}

/**
 * `$(.name)` as `{{.name}}`: config-db templates these texts with two delimiter pairs in turn, `{{ }}` then `$( )`.
 * The action ends at the `)` that balances its `(`, quoted strings skipped. Null when an action is not closed.
 */
export function dollarToBraces(text: string): string | null {
  let out = '';
  let i = 0;
  for (let open = text.indexOf('$(', i); open >= 0; open = text.indexOf('$(', i)) {
    let depth = 1;
    let q = open + 2;
    for (; q < text.length && depth > 0; q++) {
      const c = text[q];
      if (c === '"' || c === "'" || c === '`') {
        const end = text.indexOf(c, q + 1);
        if (end < 0) return null;
        q = end;
      } else if (c === '(') depth++;
      else if (c === ')') depth--;
    }
    if (depth > 0) return null;
    out += `${text.slice(i, open)}{{${text.slice(open + 2, q - 1)}}}`;
    i = q;
  }
  return out + text.slice(i);
}

/** Null when a text's `{{ }}` and `$( )` templates parse, else why not. */
export function templateTextError(text: string): string | null {
  if (text.includes('{{')) {
    const e = goTemplateError(text);
    if (e) return e;
  }
  if (!text.includes('$(')) return null;
  const braces = dollarToBraces(text);
  return braces === null ? 'a $( action is not closed' : goTemplateError(braces);
}

/** A text through Go's text/template over `env` (`{{ }}`, then `$( )`), trimmed as gomplate trims. */
export function templateText(text: string, env: Obj): string {
  let out = text.includes('{{') ? renderGoTemplate(text, env) : text.trim();
  if (out.includes('$(')) {
    const braces = dollarToBraces(out);
    if (braces === null) throw new Error(`a $( action is not closed in ${JSON.stringify(out.slice(0, 60))}`);
    out = renderGoTemplate(braces, env);
  }
  return out;
}

/** Every text of a value templated (objects and lists walked), as gomplate's StructTemplater walks a struct. */
function templateDeep(v: unknown, env: Obj): unknown {
  if (typeof v === 'string') return templateText(v, env);
  if (Array.isArray(v)) return v.map((x) => templateDeep(x, env));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, templateDeep(x, env)]));
  return v;
}

/**
 * The block's properties for one item: where `filter` holds, the property with every text templated (its `filter`
 * left out). A failing filter or template skips that property with an error, as config-db does.
 */
export function propertiesOf(props: ConfigPropertySpec[], env: Obj, holds: (expr: string) => boolean, errors: string[]): Obj[] {
  const out: Obj[] = [];
  props.forEach((p, i) => {
    try {
      if (p.filter && !holds(p.filter)) return;
      const { filter: _filter, ...property } = p;
      out.push(templateDeep(property, env) as Obj);
    } catch (err) {
      errors.push(`properties.${i}${p.name ? ` (${p.name})` : ''}: ${(err as Error).message}`);
    }
  });
  return out;
}

/**
 * Locations or aliases of one item: the templated values of every rule whose type matches and whose filter holds.
 * `parentOf(type)` gives the env of the item's nearest ancestor of that type (`withParent`); `unresolved` is true when
 * a rule needs an ancestor this result does not carry (a live event's single object), so the caller keeps what is
 * stored rather than replacing it with less. Throws on a failing filter or template.
 */
export function locationValues(rules: LocationOrAliasSpec[], type: string, env: Obj, holds: (expr: string) => boolean,
  parentOf: (type: string) => Obj | undefined): { values: string[]; unresolved: boolean } {
  const values: string[] = [];
  let unresolved = false;
  for (const rule of rules) {
    if (!rule.values?.length || !matchesTypeExpression(rule.type, type)) continue;
    if (rule.filter && !holds(rule.filter)) continue;
    let ruleEnv = env;
    if (rule.withParent) {
      const parent = parentOf(rule.withParent);
      if (!parent) {
        unresolved = true;
        continue;
      }
      ruleEnv = { ...env, parent };
    }
    for (const v of rule.values) values.push(templateText(v, ruleEnv));
  }
  return { values, unresolved };
}

/**
 * Aliases as config-db keeps them (sanitizeExtractedAliases): trimmed, no empty ones, none ending in `/` (a template
 * whose placeholder was empty would otherwise give one alias shared by many items), no repeats.
 */
export function cleanAliases(aliases: string[]): string[] {
  return [...new Set(aliases.map((a) => a.trim()).filter((a) => a !== '' && !a.endsWith('/')))];
}
