import type { ComponentProperty } from './types.js';

/**
 * Properties as the reference stores them (components.properties[]): static ones copied from the spec, and the
 * values a property's `lookup`/`configLookup` yields turned into properties. A failed lookup never fails the
 * component: its property carries the error as its text.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

const TEXT_FIELDS = ['name', 'label', 'text', 'unit', 'type', 'color', 'tooltip', 'icon', 'lastTransition'] as const;
const NUMBER_FIELDS = ['value', 'min', 'max', 'order'] as const;

/** The stored fields of one property (a spec entry or a lookup's object); null without a name. */
export function toProperty(v: unknown): ComponentProperty | null {
  if (!isObj(v) || typeof v.name !== 'string' || !v.name) return null;
  const p: Obj = { name: v.name };
  for (const f of TEXT_FIELDS) if (typeof v[f] === 'string') p[f] = v[f];
  for (const f of NUMBER_FIELDS) {
    const n = typeof v[f] === 'string' && (v[f] as string).trim() !== '' ? Number(v[f]) : v[f];
    if (typeof n === 'number' && Number.isFinite(n)) p[f] = n;
  }
  if (typeof v.headline === 'boolean') p.headline = v.headline;
  // a link needs its url (the card opens it)
  if (Array.isArray(v.links)) p.links = v.links.filter((l) => isObj(l) && typeof l.url === 'string');
  return p as unknown as ComponentProperty;
}

/**
 * What one spec property yields: `properties` go to every target component (merged by name), `byComponent` entries
 * (an object with a name and a `properties` list, as the reference's component list) go only to the target of that
 * name. A lookup's objects with a name are properties; a bare number or text is the value of the spec's property
 * (its unit, max… kept); lists from several lookups are flattened.
 */
export interface PropertyOutcome {
  properties: ComponentProperty[];
  byComponent: Array<{ name: string; properties: ComponentProperty[] }>;
}

export function lookupProperties(spec: Obj, results: unknown[]): PropertyOutcome {
  const base = toProperty({ ...spec, lookup: undefined, configLookup: undefined }) ?? { name: String(spec.name ?? '') };
  const out: PropertyOutcome = { properties: [], byComponent: [] };
  const props = (v: unknown[]) => v.map(toProperty).filter((p): p is ComponentProperty => !!p);
  for (const r of results.flatMap((v) => (Array.isArray(v) ? v : [v]))) {
    if (isObj(r) && Array.isArray(r.properties)) {
      if (typeof r.name === 'string' && r.name) out.byComponent.push({ name: r.name, properties: props(r.properties) });
      else out.properties.push(...props(r.properties));
    } else if (isObj(r) && typeof r.name === 'string') {
      const prop = toProperty({ ...base, ...r });
      if (prop) out.properties.push(prop);
    } else if (typeof r === 'number' || typeof r === 'bigint') {
      out.properties.push({ ...base, value: Number(r) });
    } else if (typeof r === 'string' || typeof r === 'boolean') {
      const n = typeof r === 'string' && r.trim() !== '' ? Number(r) : NaN;
      out.properties.push(Number.isFinite(n) && base.unit ? { ...base, value: n } : { ...base, text: String(r) });
    } else if (isObj(r) && ('value' in r || 'text' in r)) {
      const prop = toProperty({ ...base, ...r, name: base.name });
      if (prop) out.properties.push(prop);
    }
  }
  return out;
}

/** The fields a later property with the same name sets on an earlier one (the reference's Property.Merge). */
const MERGED = ['text', 'value', 'unit', 'max', 'min', 'lastTransition', 'links', 'type', 'color', 'error'] as const;

/** Adds `more` to `props`: a property whose name is already there fills/overrides that one's fields, else it is appended. */
export function mergeProperties(props: ComponentProperty[], more: ComponentProperty[]): ComponentProperty[] {
  const out = props.map((p) => ({ ...p }));
  for (const p of more) {
    const found = out.find((q) => q.name === p.name);
    if (!found) {
      out.push({ ...p });
      continue;
    }
    const into = found as unknown as Obj;
    for (const f of MERGED) if (p[f] !== undefined && p[f] !== '') into[f] = p[f];
    if (p.order && p.order > 0) found.order = p.order;
  }
  return out;
}

/** Applies one property's outcome to the components it is for (each keeps one property per name). */
export function applyProperties(targets: Array<{ name: string; properties?: ComponentProperty[] }>, outcome: PropertyOutcome): void {
  for (const t of targets) {
    let props = mergeProperties(t.properties ?? [], outcome.properties);
    for (const entry of outcome.byComponent) if (entry.name === t.name) props = mergeProperties(props, entry.properties);
    t.properties = props;
  }
}

/** The property kept when its lookup failed: the error is its text, so the card shows why. */
export const failedProperty = (spec: Obj, error: string): ComponentProperty => ({
  ...(toProperty({ ...spec, lookup: undefined, configLookup: undefined }) ?? { name: String(spec.name ?? '') }),
  text: error, error,
});

/** name → value (or text): the `properties` of a component's template and CEL environment. */
export function propertyMap(props: ComponentProperty[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of props ?? []) out[p.name] = p.value ?? p.text ?? null;
  return out;
}
