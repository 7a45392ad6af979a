import Anser from 'anser';

/**
 * Terminal output as tokens React renders (never HTML): anser 2.3.5 parses the SGR escapes into segments, which keep
 * the 16 named colours and bold/italic/underline/strikethrough; 256-colour, true-colour and background escapes are
 * dropped (the log panel's palette is chosen for contrast, arbitrary colours would not be). URLs become links only
 * when they are http or https; anything else (javascript:, file:, data:) stays text.
 */

export const ANSI_COLORS = [
  'black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white',
  'bright-black', 'bright-red', 'bright-green', 'bright-yellow', 'bright-blue', 'bright-magenta', 'bright-cyan', 'bright-white',
] as const;
export type AnsiColor = (typeof ANSI_COLORS)[number];

export interface LogSegment {
  text: string;
  color?: AnsiColor;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strike?: boolean;
  /** Set on a URL segment whose scheme is http or https. */
  href?: string;
}

const NAMED = new Set<string>(ANSI_COLORS);

function namedColor(cls: string | null): AnsiColor | undefined {
  if (!cls || !cls.startsWith('ansi-')) return undefined;
  const name = cls.slice(5);
  return NAMED.has(name) ? (name as AnsiColor) : undefined;
}

const URL_RE = /\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s<>"'`]+/g;
const TRAILING = /[.,;:!?)\]}]+$/;

/** Whether a URL may be a live link: http and https only. */
export function isSafeHref(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Splits one styled run of text at its URLs; only http/https ones carry an href. */
function linkify(segment: LogSegment): LogSegment[] {
  const out: LogSegment[] = [];
  let last = 0;
  for (const m of segment.text.matchAll(URL_RE)) {
    const raw = m[0].replace(TRAILING, '');
    const start = m.index ?? 0;
    if (!isSafeHref(raw)) continue;
    if (start > last) out.push({ ...segment, text: segment.text.slice(last, start) });
    out.push({ ...segment, text: raw, href: raw });
    last = start + raw.length;
  }
  if (last === 0) return [segment];
  if (last < segment.text.length) out.push({ ...segment, text: segment.text.slice(last) });
  return out;
}

/** One line of terminal output as segments (the line's own escapes only). */
export function ansiLine(text: string): LogSegment[] {
  if (!text.includes('\u001b') && !text.includes('://')) return text ? [{ text }] : [];
  const entries = Anser.ansiToJson(text, { json: true, remove_empty: true, use_classes: true });
  const segments: LogSegment[] = [];
  for (const e of entries) {
    if (!e.content) continue;
    const seg: LogSegment = { text: e.content };
    const color = namedColor(e.fg);
    if (color) seg.color = color;
    const deco = new Set(e.decorations);
    if (deco.has('bold')) seg.bold = true;
    if (deco.has('italic')) seg.italic = true;
    if (deco.has('underline')) seg.underline = true;
    if (deco.has('strikethrough')) seg.strike = true;
    segments.push(...linkify(seg));
  }
  return segments;
}

/** A block of output (stored stdout or stderr) as lines of segments; a trailing newline adds no empty line. */
export function ansiLines(text: string): LogSegment[][] {
  if (!text) return [];
  const lines = text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  return lines.map(ansiLine);
}
