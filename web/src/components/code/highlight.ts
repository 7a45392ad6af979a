/** A tiny JSON/YAML highlighter for read-only views: good enough for configs, far lighter than an editor. */

export type TokenKind = 'key' | 'string' | 'number' | 'keyword' | 'comment' | 'punctuation' | 'plain';
export interface Token {
  text: string;
  kind: TokenKind;
}
export type CodeLanguage = 'json' | 'yaml';

const JSON_TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\b|\b(true|false|null)\b|([{}[\],])/g;

function jsonLine(line: string): Token[] {
  const out: Token[] = [];
  let last = 0;
  for (const m of line.matchAll(JSON_TOKEN)) {
    if (m.index > last) out.push({ text: line.slice(last, m.index), kind: 'plain' });
    if (m[1] !== undefined) {
      out.push({ text: m[1], kind: m[2] ? 'key' : 'string' });
      if (m[2]) out.push({ text: m[2], kind: 'punctuation' });
    } else if (m[3] !== undefined) out.push({ text: m[3], kind: 'number' });
    else if (m[4] !== undefined) out.push({ text: m[4], kind: 'keyword' });
    else out.push({ text: m[5], kind: 'punctuation' });
    last = m.index + m[0].length;
  }
  if (last < line.length) out.push({ text: line.slice(last), kind: 'plain' });
  return out;
}

const YAML_KEY = /^(\s*(?:-\s+)*)((?:"(?:\\.|[^"\\])*"|'[^']*'|[^\s#'"][^:#]*?))(\s*:)(?=\s|$)/;
const YAML_SCALAR_KEYWORD = /^(true|false|yes|no|on|off|null|~)$/i;
const YAML_NUMBER = /^[-+]?(\d[\d_]*(\.\d+)?([eE][-+]?\d+)?|0x[0-9a-fA-F]+|\.inf|\.nan)$/;

function yamlValue(text: string): Token[] {
  const out: Token[] = [];
  // a comment starts at "#" after whitespace, outside quotes
  let value = text;
  let comment = '';
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]))) {
      value = text.slice(0, i);
      comment = text.slice(i);
      break;
    }
  }
  const lead = /^\s*/.exec(value)![0];
  const body = value.trim();
  const trail = value.slice(lead.length + body.length);
  if (lead) out.push({ text: lead, kind: 'plain' });
  if (body) {
    const kind: TokenKind = /^["']/.test(body)
      ? 'string'
      : YAML_NUMBER.test(body)
        ? 'number'
        : YAML_SCALAR_KEYWORD.test(body)
          ? 'keyword'
          : /^[|>][-+]?$/.test(body) || /^[[\]{},&*!]/.test(body)
            ? 'punctuation'
            : 'string';
    out.push({ text: body, kind });
  }
  if (trail) out.push({ text: trail, kind: 'plain' });
  if (comment) out.push({ text: comment, kind: 'comment' });
  return out;
}

function yamlLine(line: string): Token[] {
  if (/^\s*#/.test(line)) return [{ text: line, kind: 'comment' }];
  if (/^(---|\.\.\.)\s*$/.test(line)) return [{ text: line, kind: 'punctuation' }];
  const key = YAML_KEY.exec(line);
  if (key) {
    const head: Token[] = [
      { text: key[1], kind: 'punctuation' },
      { text: key[2], kind: 'key' },
      { text: key[3], kind: 'punctuation' },
    ];
    return [...head, ...yamlValue(line.slice(key[0].length))].filter((t) => t.text);
  }
  const dash = /^(\s*-\s+)/.exec(line);
  if (dash) return [{ text: dash[1], kind: 'punctuation' }, ...yamlValue(line.slice(dash[1].length))];
  return yamlValue(line);
}

/** Tokens per line, so lines can be numbered and selected. */
export function highlightLines(code: string, language: CodeLanguage): Token[][] {
  const tokenize = language === 'json' ? jsonLine : yamlLine;
  return code.replace(/\r\n?/g, '\n').split('\n').map(tokenize);
}

/** "3-5,8" -> {3,4,5,8}; junk is skipped. Lines are 1-based. */
export function parseLineSelection(text: string | null | undefined): Set<number> {
  const out = new Set<number>();
  for (const part of (text ?? '').split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+))?\s*$/.exec(part);
    if (!m) continue;
    const a = Number(m[1]);
    const b = m[2] ? Number(m[2]) : a;
    for (let i = Math.min(a, b); i <= Math.max(a, b) && i - Math.min(a, b) < 10_000; i++) if (i > 0) out.add(i);
  }
  return out;
}

/** {3,4,5,8} -> "3-5,8". */
export function formatLineSelection(lines: Iterable<number>): string {
  const sorted = [...new Set(lines)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const start = sorted[i];
    while (i + 1 < sorted.length && sorted[i + 1] === sorted[i] + 1) i++;
    parts.push(start === sorted[i] ? String(start) : `${start}-${sorted[i]}`);
  }
  return parts.join(',');
}
