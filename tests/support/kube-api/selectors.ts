/** Label and field selectors with the grammar of k8s.io/apimachinery/pkg/labels and pkg/fields. */
import type { KubeObject } from './types.js';

export class SelectorError extends Error {}

type Requirement =
  | { key: string; op: 'eq' | 'neq'; values: [string] }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | 'notexists'; values: [] };

export type Matcher = (labels: Record<string, string>) => boolean;

/** Split on commas that are not inside `( )` (set-based values contain commas). */
function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkKey(key: string, sel: string) {
  if (!KEY.test(key)) throw new SelectorError(`unable to parse requirement: invalid label key "${key}" in "${sel}"`);
}
function checkValue(v: string, sel: string) {
  if (v.length > 63 || !VALUE.test(v)) {
    throw new SelectorError(`unable to parse requirement: invalid label value "${v}" in "${sel}"`);
  }
}

export function parseLabelSelector(sel: string | null | undefined): Matcher {
  if (!sel || !sel.trim()) return () => true;
  const reqs: Requirement[] = [];
  for (const part of splitTopLevel(sel)) {
    let m: RegExpMatchArray | null;
    if ((m = part.match(/^!\s*(\S+)$/))) {
      checkKey(m[1], sel);
      reqs.push({ key: m[1], op: 'notexists', values: [] });
    } else if ((m = part.match(/^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/))) {
      checkKey(m[1], sel);
      const values = m[3].split(',').map((v) => v.trim());
      values.forEach((v) => checkValue(v, sel));
      reqs.push({ key: m[1], op: m[2] as 'in' | 'notin', values });
    } else if ((m = part.match(/^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/))) {
      checkKey(m[1], sel);
      checkValue(m[3], sel);
      reqs.push({ key: m[1], op: m[2] === '!=' ? 'neq' : 'eq', values: [m[3]] });
    } else if ((m = part.match(/^(\S+)$/))) {
      checkKey(m[1], sel);
      reqs.push({ key: m[1], op: 'exists', values: [] });
    } else {
      throw new SelectorError(`unable to parse requirement: "${part}" in "${sel}"`);
    }
  }
  return (labels) =>
    reqs.every((r) => {
      const has = Object.prototype.hasOwnProperty.call(labels, r.key);
      const v = labels[r.key];
      switch (r.op) {
        case 'eq':
          return has && v === r.values[0];
        case 'neq':
          return !has || v !== r.values[0];
        case 'in':
          return has && r.values.includes(v);
        case 'notin':
          return !has || !r.values.includes(v);
        case 'exists':
          return has;
        case 'notexists':
          return !has;
      }
    });
}

/** Field selectors: `metadata.name`, `metadata.namespace` (every kind supports these two), `=`, `==`, `!=`. */
export function parseFieldSelector(sel: string | null | undefined): (obj: KubeObject) => boolean {
  if (!sel || !sel.trim()) return () => true;
  const reqs = splitTopLevel(sel).map((part) => {
    const m = part.match(/^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/);
    if (!m) throw new SelectorError(`invalid selector: '${sel}'; can't understand '${part}'`);
    const [, field, op, value] = m;
    if (field !== 'metadata.name' && field !== 'metadata.namespace') {
      throw new SelectorError(`field label not supported: ${field}`);
    }
    return { field, neq: op === '!=', value };
  });
  return (obj) =>
    reqs.every((r) => {
      const actual = r.field === 'metadata.name' ? obj.metadata.name : (obj.metadata.namespace ?? '');
      return r.neq ? actual !== r.value : actual === r.value;
    });
}
