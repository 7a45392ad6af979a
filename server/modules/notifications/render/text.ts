import { mdUnescape, splitLinks } from './markdown.js';

/**
 * Plain text of a markdown message (email's text part, SMS-like services, webhook `message`): links as `text: url`,
 * emphasis and heading marks dropped, escapes read back.
 */
export function toPlainText(md: string): string {
  return splitLinks(md).map((p) => {
    if (!p.url) {
      return mdUnescape(p.text
        .replace(/^#{1,6}\s+/gm, '')
        .replace(/(?<!\\)\*\*(.+?)(?<!\\)\*\*/g, '$1')
        .replace(/(?<![\\\w])__(.+?)__(?!\w)/g, '$1'));
    }
    return `${mdUnescape(p.text)}: ${p.url}`;
  }).join('').trim();
}
