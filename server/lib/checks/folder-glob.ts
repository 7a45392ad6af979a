/**
 * Glob paths of the folder check, as the reference reads them (flanksource/artifacts' local filesystem hands any
 * path with `*` to doublestar): `*` and `?` within one path segment, `[a-z]` / `[!a-z]` classes, `{a,b}`
 * alternatives, and `**` as a whole segment for any number of directories (none included). Dot files match `*`.
 */
export interface GlobPath {
  /** The directory the walk starts from: the segments before the first one with a wildcard. */
  base: string;
  /** Tests a path relative to `base` (segments joined with `/`). */
  regex: RegExp;
  /** How many segments below `base` a match can be; undefined with `**` (no limit). */
  depth: number | undefined;
}

const META = /[*?[{]/;

/** Whether the folder check's path is a glob rather than a directory (the reference: any `*`; here `?[{` too). */
export function isGlob(path: string): boolean {
  return META.test(path.replace(/\\./g, ''));
}

/** Splits an absolute glob path into the directory to walk and the pattern below it. */
export function compileGlob(path: string): GlobPath {
  const segs = path.split('/');
  const first = segs.findIndex((s) => META.test(s.replace(/\\./g, '')));
  const base = segs.slice(0, first).join('/') || '/';
  const rest = segs.slice(first).filter((s, i, all) => s !== '' || i === all.length - 1);
  let re = '';
  rest.forEach((seg, i) => {
    const last = i === rest.length - 1;
    if (seg === '**') re += last ? '.*' : '(?:[^/]+/)*';
    else re += segmentRegex(seg) + (last ? '' : '/');
  });
  return { base, regex: new RegExp(`^${re}$`), depth: rest.includes('**') ? undefined : rest.length };
}

function escape(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** One path segment's pattern as a regular expression that never crosses `/`. */
function segmentRegex(seg: string): string {
  let out = '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i];
    if (c === '\\' && i + 1 < seg.length) out += escape(seg[++i]);
    else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = seg.indexOf(']', i + 2);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      let body = seg.slice(i + 1, end);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      out += `[${negate ? '^/' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else if (c === '{') {
      const end = seg.indexOf('}', i);
      if (end < 0) {
        out += '\\{';
        continue;
      }
      out += `(?:${seg.slice(i + 1, end).split(',').map(segmentRegex).join('|')})`;
      i = end;
    } else out += escape(c);
  }
  return out;
}
