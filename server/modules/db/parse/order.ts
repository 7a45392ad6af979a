import { tooLarge } from '../errors.js';
import type { OrderTerm } from './ast.js';
import { Scanner } from './scanner.js';

export const MAX_ORDER_TERMS = 20;

/** Parses `order=created_at.desc,name,labels->>team.asc.nullslast,rel(col).desc`. */
export function parseOrder(src: string, what = 'order parameter'): OrderTerm[] {
  const s = new Scanner(src, what);
  const terms: OrderTerm[] = [];
  for (;;) {
    s.skipWs();
    let field = s.field();
    let embed: string | undefined;
    if (field.json.length === 0 && s.eat('(')) {
      embed = field.name;
      field = s.field();
      s.expect(')');
    }
    const term: OrderTerm = { field, embed, dir: null, nulls: null };
    while (s.eat('.')) {
      const w = s.word();
      if ((w === 'asc' || w === 'desc') && term.dir === null) term.dir = w;
      else if ((w === 'nullsfirst' || w === 'nullslast') && term.nulls === null) term.nulls = w === 'nullsfirst' ? 'first' : 'last';
      else s.fail('asc, desc, nullsfirst or nullslast');
      s.pos += w.length;
    }
    terms.push(term);
    if (terms.length > MAX_ORDER_TERMS) throw tooLarge(`order may list at most ${MAX_ORDER_TERMS} terms`);
    s.skipWs();
    if (s.eof) return terms;
    s.expect(',');
  }
}

/** A non-negative integer parameter (limit/offset); anything else is a parse error. */
export function parseCount(src: string, what: string): number {
  if (!/^\d{1,15}$/.test(src)) {
    const s = new Scanner(src, what);
    s.fail('a non-negative integer');
  }
  return Number(src);
}
