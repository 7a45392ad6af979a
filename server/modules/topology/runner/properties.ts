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
 * What a property lookup yields as properties: objects with a name are properties (a list of them, or an object whose
 * `properties` list them); a bare number or text is the value of the spec's property (its unit, max… kept).
 */
export function lookupProperties(spec: Obj, results: unknown[]): ComponentProperty[] {
  const base = toProperty({ ...spec, lookup: undefined, configLookup: undefined }) ?? { name: String(spec.name ?? '') };
  const out: ComponentProperty[] = [];
  const flat = results.length === 1 && Array.isArray(results[0]) ? results[0] as unknown[] : results;
  for (const r of flat) {
    if (isObj(r) && Array.isArray(r.properties)) {
      for (const p of r.properties) {
        const prop = toProperty(p);
        if (prop) out.push(prop);
      }
    } else if (isObj(r) && typeof r.name === 'string') {
      const prop = toProperty({ ...base, ...r });
      if (prop) out.push(prop);
    } else if (typeof r === 'number' || typeof r === 'bigint') {
      out.push({ ...base, value: Number(r) });
    } else if (typeof r === 'string' || typeof r === 'boolean') {
      const n = typeof r === 'string' && r.trim() !== '' ? Number(r) : NaN;
      out.push(Number.isFinite(n) && base.unit ? { ...base, value: n } : { ...base, text: String(r) });
    } else if (isObj(r) && ('value' in r || 'text' in r)) {
      const prop = toProperty({ ...base, ...r, name: base.name });
      if (prop) out.push(prop);
    }
  }
  return out;
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
