import { tooLarge } from '../errors.js';
import type { EmbedItem, SelectItem } from './ast.js';
import { Scanner } from './scanner.js';

/** Deepest embedding accepted: `a(b(c(d(*))))`. */
export const MAX_EMBED_DEPTH = 4;
/** Most select items (columns and embeds, all levels together) in one request. */
export const MAX_SELECT_ITEMS = 300;

/**
 * Parses PostgREST's `select` grammar: `*`, `alias:col->a->>b::cast`, and embeds
 * `alias:rel!hint!inner(items)::cast`. Whitespace around items is allowed (the UI sends `teams(*, created_by(…))`).
 */
export function parseSelect(src: string): SelectItem[] {
  const s = new Scanner(src, 'select parameter');
  let count = 0;

  const list = (depth: number): SelectItem[] => {
    const items: SelectItem[] = [];
    for (;;) {
      s.skipWs();
      items.push(item(depth));
      if (++count > MAX_SELECT_ITEMS) throw tooLarge(`select has more than ${MAX_SELECT_ITEMS} items`);
      s.skipWs();
      if (!s.eat(',')) return items;
    }
  };

  const item = (depth: number): SelectItem => {
    if (s.eat('*')) return { type: 'star' };
    if (s.startsWith('...')) s.fail('a column or embed (spread embeds are not supported)');
    let name = s.name();
    let alias: string | undefined;
    if (s.peek() === ':' && s.peek(1) !== ':') {
      s.pos++;
      alias = name;
      name = s.name();
    }
    if (s.peek() === '!' || s.peek() === '(') return embed(name, alias, depth);
    const json = s.jsonSteps();
    const cast = s.eat('::') ? s.castType() : undefined;
    return { type: 'field', field: { name, json }, alias, cast };
  };

  const embed = (name: string, alias: string | undefined, depth: number): EmbedItem => {
    if (depth + 1 > MAX_EMBED_DEPTH) throw tooLarge(`embedding is limited to ${MAX_EMBED_DEPTH} levels`);
    let hint: string | undefined;
    let join: 'left' | 'inner' = 'left';
    while (s.eat('!')) {
      const h = s.name();
      if (h === 'inner' || h === 'left') join = h;
      else if (hint === undefined) hint = h;
      else s.fail('"(" (only one relationship hint is allowed)');
    }
    s.expect('(');
    s.skipWs();
    const items = s.peek() === ')' ? [] : list(depth + 1);
    s.skipWs();
    s.expect(')');
    const cast = s.eat('::') ? s.castType() : undefined;
    return { type: 'embed', name, alias, hint, join, cast, items };
  };

  if (src.trim() === '') s.fail('a column, "*" or an embed');
  const items = list(0);
  if (!s.eof) s.fail('"," or end of input');
  return items;
}
