import { mdUnescape, safeUrl, splitLinks } from './markdown.js';

/**
 * The Slack shape (chat.postMessage `text` + `blocks`): a header with the title, the body as mrkdwn sections (markdown
 * links become `<url|text>`, `**bold**` `*bold*`, headings bold lines, `&<>` escaped as Slack asks), a context line,
 * and an actions block with link buttons to the resource and its Silence form.
 */

const HEADER_MAX = 150;
const SECTION_MAX = 3000;
const MAX_BLOCKS = 50;

/** Slack's three escapes in message text. */
export function slackEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function inline(text: string): string {
  const bold = text
    .replace(/^#{1,6}\s+(.*)$/gm, '**$1**')
    .replace(/(?<!\\)\*\*(.+?)(?<!\\)\*\*/g, '\u0001$1\u0001')
    .replace(/^(\s*)[-*+]\s+/gm, '$1• ');
  return slackEscape(mdUnescape(bold)).replace(/\u0001/g, '*');
}

/** Markdown (as the default messages and custom templates write it) to Slack mrkdwn. */
export function toMrkdwn(md: string): string {
  return splitLinks(md).map((p) => {
    if (!p.url) return inline(p.text);
    const text = inline(p.text).replace(/[|]/g, '¦');
    return safeUrl(p.url) ? `<${p.url.replace(/[<>|]/g, encodeURIComponent)}|${text}>` : text;
  }).join('');
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

export interface SlackShapeInput {
  title: string;
  markdown: string;
  context?: string;
  url?: string;
  urlLabel?: string;
  silenceUrl?: string;
}

export function slackShape(m: SlackShapeInput): { text: string; blocks: unknown[] } {
  const blocks: unknown[] = [];
  if (m.title) blocks.push({ type: 'header', text: { type: 'plain_text', text: clip(m.title, HEADER_MAX), emoji: true } });
  const body = toMrkdwn(m.markdown).trim();
  // sections split on blank lines, each within Slack's 3000 characters
  for (const para of body.split(/\n{2,}/)) {
    if (!para.trim()) continue;
    for (let i = 0; i < para.length && blocks.length < MAX_BLOCKS - 3; i += SECTION_MAX) {
      blocks.push({ type: 'section', text: { type: 'mrkdwn', text: para.slice(i, i + SECTION_MAX) } });
    }
  }
  if (m.context) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: clip(slackEscape(m.context), SECTION_MAX) }] });
  const buttons: unknown[] = [];
  if (m.url && safeUrl(m.url)) {
    buttons.push({ type: 'button', text: { type: 'plain_text', text: m.urlLabel ?? 'View', emoji: true }, url: m.url, action_id: 'view' });
  }
  if (m.silenceUrl && safeUrl(m.silenceUrl)) {
    buttons.push({ type: 'button', text: { type: 'plain_text', text: '🔕 Silence', emoji: true }, url: m.silenceUrl, action_id: 'silence' });
  }
  if (buttons.length) blocks.push({ type: 'actions', elements: buttons });
  return { text: clip(m.title || body, SECTION_MAX), blocks };
}

/**
 * A custom template that renders Slack's own JSON (`{"blocks": [...]}`, as the reference's templates do for channel
 * slack) is sent as those blocks.
 */
export function slackBlocksOf(rendered: string): unknown[] | null {
  const s = rendered.trim();
  if (!s.startsWith('{') || !s.includes('"blocks"')) return null;
  try {
    const v = JSON.parse(s) as { blocks?: unknown };
    return Array.isArray(v.blocks) ? v.blocks : null;
  } catch {
    return null;
  }
}
