/** Comment mentions, stored as `@[display](user:id)` (spec 000 §3). */

export type CommentPart = { kind: 'text'; text: string } | { kind: 'mention'; name: string; id: string };

const MENTION = /@\[([^\]\n]+)\]\(user:([^)\s]+)\)/g;

/** Splits a stored comment into text and mentions, in order. */
export function parseComment(comment: string): CommentPart[] {
  const parts: CommentPart[] = [];
  let last = 0;
  for (const m of comment.matchAll(MENTION)) {
    if (m.index > last) parts.push({ kind: 'text', text: comment.slice(last, m.index) });
    parts.push({ kind: 'mention', name: m[1], id: m[2] });
    last = m.index + m[0].length;
  }
  if (last < comment.length) parts.push({ kind: 'text', text: comment.slice(last) });
  return parts;
}

/** The markup for one mention; brackets in a name would end the markup early, so they are dropped. */
export function mentionMarkup(person: { id: string; name: string }): string {
  return `@[${person.name.replace(/[[\]()\n]/g, '')}](user:${person.id})`;
}

/** The comment as plain text ("@Ana Lee"), for previews and the changelog. */
export function commentText(comment: string): string {
  return parseComment(comment)
    .map((p) => (p.kind === 'text' ? p.text : `@${p.name}`))
    .join('');
}

/**
 * The mention being typed at the caret: `@` at the start or after a space, then up to 30 characters without a
 * newline or another `@`. Returns where it starts and the query typed so far, or null.
 */
export function activeMention(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const at = before.lastIndexOf('@');
  if (at < 0) return null;
  if (at > 0 && !/\s/.test(before[at - 1])) return null;
  const query = before.slice(at + 1);
  if (query.length > 30 || /[\n@[\]]/.test(query)) return null;
  return { start: at, query };
}

/** Replaces the mention being typed (from `start` to the caret) with the person's markup and a space. */
export function insertMention(text: string, start: number, caret: number, person: { id: string; name: string }) {
  const markup = `${mentionMarkup(person)} `;
  return { text: text.slice(0, start) + markup + text.slice(caret), caret: start + markup.length };
}
