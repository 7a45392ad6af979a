import { Marked, type Tokens } from 'marked';
import { safeUrl } from './markdown.js';

/**
 * Email HTML from markdown with marked 18: raw HTML in the markdown (resource names, check messages and custom
 * templates are untrusted) is escaped, so `<script>` arrives as text; links other than http(s), mailto and paths are
 * dropped to their text; images are not loaded (their alt text stays).
 */

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const marked = new Marked({
  async: false,
  gfm: true,
  breaks: true,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(token.text);
    },
    link(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Link): string {
      const text = this.parser.parseInline(token.tokens);
      if (!safeUrl(token.href)) return text;
      return `<a href="${escapeHtml(token.href)}">${text}</a>`;
    },
    image(token: Tokens.Image): string {
      return escapeHtml(token.text);
    },
  },
});

/** The HTML of a markdown body, safe to send: no raw HTML, no script links. */
export function markdownToHtml(md: string): string {
  return marked.parse(md) as string;
}

/** The whole email document: the title as a heading and the body. */
export function emailHtml(title: string, md: string): string {
  return [
    '<!DOCTYPE html><html><head><meta charset="utf-8"></head>',
    '<body style="font-family: -apple-system, Segoe UI, Helvetica, Arial, sans-serif; font-size: 14px; color: #201f1e">',
    `<h2 style="font-size: 18px">${escapeHtml(title)}</h2>`,
    markdownToHtml(md),
    '</body></html>',
  ].join('\n');
}
