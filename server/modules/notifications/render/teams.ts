import { mdUnescape, safeUrl, splitLinks } from './markdown.js';

/**
 * The Teams shape: a message with one Adaptive Card (1.4, what Teams incoming webhooks and Workflows accept): the title
 * as a bold TextBlock, the body as a markdown TextBlock (Teams renders bold, lists and links; raw HTML is not rendered,
 * and escaped characters are read back since TextBlock has no backslash escapes; it renders no HTML, so `<` stays as typed), and Action.OpenUrl buttons to the
 * resource and its Silence form.
 */

/** Markdown to the subset a TextBlock renders: links kept (when safe), escapes read back. */
export function toTeamsMarkdown(md: string): string {
  return splitLinks(md).map((p) => {
    if (!p.url) return mdUnescape(p.text);
    const text = mdUnescape(p.text).replace(/[[\]]/g, '');
    return safeUrl(p.url) ? `[${text}](${p.url})` : text;
  }).join('');
}

export interface TeamsShapeInput {
  title: string;
  markdown: string;
  url?: string;
  urlLabel?: string;
  silenceUrl?: string;
}

export function teamsShape(m: TeamsShapeInput): Record<string, unknown> {
  const actions: unknown[] = [];
  if (m.url && safeUrl(m.url)) actions.push({ type: 'Action.OpenUrl', title: m.urlLabel ?? 'View', url: m.url });
  if (m.silenceUrl && safeUrl(m.silenceUrl)) actions.push({ type: 'Action.OpenUrl', title: 'Silence', url: m.silenceUrl });
  const body: unknown[] = [];
  if (m.title) body.push({ type: 'TextBlock', text: m.title, weight: 'Bolder', size: 'Medium', wrap: true });
  const text = toTeamsMarkdown(m.markdown).trim();
  if (text) body.push({ type: 'TextBlock', text, wrap: true });
  return {
    type: 'message',
    summary: m.title,
    attachments: [{
      contentType: 'application/vnd.microsoft.card.adaptive',
      contentUrl: null,
      content: {
        $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
        type: 'AdaptiveCard',
        version: '1.4',
        body,
        ...(actions.length ? { actions } : {}),
        msteams: { width: 'Full' },
      },
    }],
  };
}
