/**
 * The markdown the default messages are written in, and its inverse: resource names, labels and messages are
 * untrusted, so they enter markdown escaped (a name `**x**` or `[a](javascript:…)` stays text), and the channel shapes
 * (slack mrkdwn, plain text) read the escapes back.
 */

const MD_SPECIAL = /[\\`*_[\]()<>#|~]/g;

/** Escapes text for markdown: emphasis, links, code, headings and raw HTML become literal characters. */
export function mdEscape(value: unknown): string {
  return String(value ?? '').replace(/\r?\n/g, ' ').replace(MD_SPECIAL, (c) => `\\${c}`);
}

/** A markdown link; the URL's spaces and parentheses are percent-encoded so they cannot end it. */
export function mdLink(text: string, url: string): string {
  return `[${mdEscape(text)}](${url.replace(/[\s()<>]/g, (c) => encodeURIComponent(c))})`;
}

/** Reads markdown backslash escapes back as the characters. */
export function mdUnescape(text: string): string {
  return text.replace(/\\([\\`*_[\]<>#|~!(){}.+-])/g, '$1');
}

/** `[text](url)` links of a markdown text, the text with escaped brackets; used to split text around them. */
export const MD_LINK = /(?<!\\)\[((?:\\.|[^\]\\\n])*)\]\(([^)\s]+)\)/g;

/** Splits markdown into text runs and links. */
export function splitLinks(md: string): Array<{ text: string; url?: string }> {
  const parts: Array<{ text: string; url?: string }> = [];
  let last = 0;
  for (const m of md.matchAll(MD_LINK)) {
    if (m.index > last) parts.push({ text: md.slice(last, m.index) });
    parts.push({ text: m[1], url: m[2] });
    last = m.index + m[0].length;
  }
  if (last < md.length) parts.push({ text: md.slice(last) });
  return parts;
}

/** Whether a link target may be followed from a message: http(s), mailto, or a path. */
export function safeUrl(url: string): boolean {
  return /^(https?:|mailto:|\/)/i.test(url.trim());
}
