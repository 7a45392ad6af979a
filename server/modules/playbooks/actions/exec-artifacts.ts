import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, realpath } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative } from 'node:path';
import type { Readable } from 'node:stream';
import fg from 'fast-glob';
import type { ActionContext } from './types.js';

/**
 * exec's `artifacts[]{path}`: after the script ends (completed or with a non-zero exit; not when stopped), the files
 * each path or glob matches are stored in the reference's `artifacts` table (playbook_run_action_id = the action,
 * path, filename, content_type, size, checksum sha256, content), where the run's queries read them (`artifacts`
 * embeds, get_playbook_run_actions). A relative path or glob is matched inside the script's working directory (stored
 * relative to it; a file whose real path leads out of it is skipped); an absolute one (`/tmp/output.txt`,
 * `/tmp/logs/*`, as the reference writes them) where it points, stored by its absolute path: the script runs as the
 * console's user and could read those files anyway. `/dev/stdout` and `/dev/stderr` store the script's output as
 * `stdout`/`stderr` (the reference's). Only regular files count (a matched symbolic link is skipped, globs do not
 * descend through linked directories); at most ARTIFACT_MAX_FILES files (in path order, among the first matches
 * found) of ARTIFACT_MAX_BYTES each per action, none read past that (not even one that reports a smaller size, as
 * /proc's do); a file over the limit is reported on stderr and skipped. Matching stops when the action is stopped or
 * reaches its timeout. Secrets the run knows (valueFrom, secret params, connection credentials) are masked in what
 * is stored.
 */

export const ARTIFACT_MAX_FILES = 50;
export const ARTIFACT_MAX_BYTES = 10 * 1024 * 1024;

const TYPES: Record<string, string> = {
  '.txt': 'text/plain', '.log': 'text/plain', '.md': 'text/markdown', '.csv': 'text/csv', '.json': 'application/json',
  '.yaml': 'application/yaml', '.yml': 'application/yaml', '.xml': 'application/xml', '.html': 'text/html',
  '.pdf': 'application/pdf', '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.svg': 'image/svg+xml',
  '.gz': 'application/gzip', '.tar': 'application/x-tar', '.zip': 'application/zip',
};

export interface SavedArtifact {
  id: string;
  path: string;
  size: number;
}

/**
 * The file with the run's secrets masked as `***`, as its output and result are: text (valid UTF-8) as text; other
 * content byte for byte through latin1, which masks a secret written as it is when it is ASCII (the usual case) and
 * leaves the rest of a binary file's bytes as they were. Size and checksum are of what is stored.
 */
function maskContent(ctx: ActionContext, content: Buffer): Buffer {
  let text: string | null = null;
  try {
    text = UTF8.decode(content);
  } catch {
    text = null;
  }
  if (text !== null) {
    const out = ctx.mask(text);
    return out === text ? content : Buffer.from(out, 'utf8');
  }
  const bytes = content.toString('latin1');
  const out = ctx.mask(bytes);
  return out === bytes ? content : Buffer.from(out, 'latin1');
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The script's output, for the `/dev/stdout` and `/dev/stderr` artifacts. */
export interface ScriptOutput {
  stdout: string;
  stderr: string;
}

const STREAMS = new Map<string, keyof ScriptOutput>([['/dev/stdout', 'stdout'], ['/dev/stderr', 'stderr']]);

/** Up to `limit` entries the globs match (each once), in the order found; stops early on the signal. */
async function matching(globs: string[], options: fg.Options, limit: number, signal: AbortSignal | undefined): Promise<string[]> {
  const found: string[] = [];
  if (!globs.length || signal?.aborted) return found;
  const stream = fg.stream(globs, { ...options, onlyFiles: true, dot: true, followSymbolicLinks: false, unique: true, suppressErrors: true }) as Readable;
  const stop = () => stream.destroy();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    for await (const entry of stream) {
      found.push(String(entry));
      if (found.length >= limit) break;
    }
  } catch {
    // destroyed on abort: what was found so far
  } finally {
    signal?.removeEventListener('abort', stop);
    stream.destroy();
  }
  return found;
}

/**
 * The file's content, at most `max` + 1 bytes (more means over the limit); null when it is not a regular file when
 * opened (O_NOFOLLOW: a link put in its place is not followed; O_NONBLOCK: a FIFO put there does not block).
 */
async function readBounded(path: string, max: number): Promise<Buffer | null> {
  const fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (!fh) return null;
  try {
    if (!(await fh.stat()).isFile()) return null;
    const chunks: Buffer[] = [];
    let total = 0;
    while (total <= max) {
      const buf = Buffer.alloc(Math.min(1024 * 1024, max + 1 - total));
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (!bytesRead) break;
      chunks.push(buf.subarray(0, bytesRead));
      total += bytesRead;
    }
    return Buffer.concat(chunks, total);
  } catch {
    return null;
  } finally {
    await fh.close().catch(() => undefined);
  }
}

interface Candidate {
  /** The path stored (relative to the working directory, absolute, or stdout/stderr). */
  path: string;
  /** The file read (unset for the script's output). */
  file?: string;
  /** The script's output stored. */
  text?: string;
}

/**
 * Stores the matching files (and the script's output for `/dev/stdout`, `/dev/stderr`); returns what was stored, in
 * path order. `signal` stops the matching (the action's, with its deadline).
 */
export async function saveArtifacts(
  ctx: ActionContext, patterns: readonly { path: string }[], cwd: string, output?: ScriptOutput, signal: AbortSignal = ctx.signal,
): Promise<SavedArtifact[]> {
  if (!patterns.length) return [];
  const root = await realpath(cwd);
  // matches looked at: beyond the files stored, room for some that turn out not to be stored (links, too large)
  const limit = ARTIFACT_MAX_FILES * 4;
  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  let more = false;
  const add = (c: Candidate) => {
    if (seen.has(c.path)) return;
    if (candidates.length >= limit) {
      more = true;
      return;
    }
    seen.add(c.path);
    candidates.push(c);
  };
  const relGlobs: string[] = [];
  const absGlobs: string[] = [];
  for (const { path } of patterns) {
    const stream = STREAMS.get(path);
    if (stream && output) add({ path: stream, text: output[stream] });
    else (isAbsolute(path) ? absGlobs : relGlobs).push(path);
  }
  // one more than the limit: telling "more match" from "exactly that many"
  const rels = await matching(relGlobs, { cwd: root }, limit + 1, signal);
  for (const rel of rels) {
    const real = await realpath(join(root, rel)).catch(() => null);
    // a file whose real path leads out of the working directory (through a linked directory) is skipped
    if (real && !relative(root, real).startsWith('..')) add({ path: rel, file: join(root, rel) });
  }
  const abss = await matching(absGlobs, { absolute: true }, limit + 1, signal);
  for (const abs of abss) add({ path: abs, file: abs });
  if (rels.length > limit || abss.length > limit) more = true;

  const saved: SavedArtifact[] = [];
  candidates.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const c of candidates) {
    if (saved.length >= ARTIFACT_MAX_FILES) {
      more = true;
      break;
    }
    let raw: Buffer;
    if (c.file === undefined) {
      raw = Buffer.from(c.text ?? '', 'utf8');
    } else {
      const st = await lstat(c.file).catch(() => null);
      if (!st || !st.isFile()) continue;
      if (st.size > ARTIFACT_MAX_BYTES) {
        ctx.log('stderr', `artifacts: ${c.path} (${st.size} bytes) is over ${ARTIFACT_MAX_BYTES} bytes and is not stored\n`);
        continue;
      }
      const read = await readBounded(c.file, ARTIFACT_MAX_BYTES);
      if (!read) continue;
      raw = read;
    }
    if (raw.length > ARTIFACT_MAX_BYTES) {
      ctx.log('stderr', `artifacts: ${c.path} is over ${ARTIFACT_MAX_BYTES} bytes and is not stored\n`);
      continue;
    }
    const content = maskContent(ctx, raw);
    const { rows } = await ctx.db.query<{ id: string }>(
      `INSERT INTO artifacts (playbook_run_action_id, path, filename, content_type, size, checksum, content)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [ctx.actionId, c.path, basename(c.path), c.file === undefined ? 'text/plain' : TYPES[extname(c.path).toLowerCase()] ?? 'application/octet-stream',
        content.length, createHash('sha256').update(content).digest('hex'), content],
    );
    saved.push({ id: rows[0].id, path: c.path, size: content.length });
  }
  if (more) ctx.log('stderr', `artifacts: more than ${ARTIFACT_MAX_FILES} files match; the rest are not stored\n`);
  return saved;
}
