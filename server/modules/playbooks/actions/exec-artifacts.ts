import { createHash } from 'node:crypto';
import { lstat, readFile, realpath } from 'node:fs/promises';
import { basename, extname, join, relative } from 'node:path';
import fg from 'fast-glob';
import type { ActionContext } from './types.js';

/**
 * exec's `artifacts[]{path}`: after the script ends (completed or with a non-zero exit; not when stopped), the files
 * each path or glob matches inside the script's working directory are stored in the reference's `artifacts` table
 * (playbook_run_action_id = the action, path relative to the working directory, filename, content_type, size,
 * checksum sha256, content), where the run's queries read them (`artifacts` embeds, get_playbook_run_actions).
 * Only regular files inside the directory count (symbolic links are skipped); at most ARTIFACT_MAX_FILES files of
 * ARTIFACT_MAX_BYTES each per action; a file over the limit is reported on stderr and skipped. Secrets the run knows
 * (valueFrom, secret params, connection credentials) are masked in what is stored.
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

/** Stores the matching files; returns what was stored, in path order. */
export async function saveArtifacts(ctx: ActionContext, patterns: readonly { path: string }[], cwd: string): Promise<SavedArtifact[]> {
  if (!patterns.length) return [];
  const root = await realpath(cwd);
  const found = await fg(patterns.map((p) => p.path), {
    cwd: root, onlyFiles: true, dot: true, followSymbolicLinks: false, unique: true, suppressErrors: true,
  });
  const saved: SavedArtifact[] = [];
  for (const rel of found.sort()) {
    if (saved.length >= ARTIFACT_MAX_FILES) {
      ctx.log('stderr', `artifacts: more than ${ARTIFACT_MAX_FILES} files match; the rest are not stored\n`);
      break;
    }
    const full = join(root, rel);
    const st = await lstat(full).catch(() => null);
    if (!st || !st.isFile()) continue;
    const real = await realpath(full).catch(() => null);
    if (!real || relative(root, real).startsWith('..')) continue;
    if (st.size > ARTIFACT_MAX_BYTES) {
      ctx.log('stderr', `artifacts: ${rel} (${st.size} bytes) is over ${ARTIFACT_MAX_BYTES} bytes and is not stored\n`);
      continue;
    }
    const content = maskContent(ctx, await readFile(real));
    const { rows } = await ctx.db.query<{ id: string }>(
      `INSERT INTO artifacts (playbook_run_action_id, path, filename, content_type, size, checksum, content)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [ctx.actionId, rel, basename(rel), TYPES[extname(rel).toLowerCase()] ?? 'application/octet-stream', content.length,
        createHash('sha256').update(content).digest('hex'), content],
    );
    saved.push({ id: rows[0].id, path: rel, size: content.length });
  }
  return saved;
}
