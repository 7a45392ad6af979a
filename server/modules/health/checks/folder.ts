import type { Dirent } from 'node:fs';
import { lstat, opendir, stat, statfs } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { z } from 'zod';
import { InvalidSpecError, failResult, passResult, resultFromError, plural } from './lib/result.js';
import { formatDuration, formatSize, parseDuration, parseSize, parseTime } from './lib/units.js';
import type { CheckContext, CheckResult, CheckType } from './types.js';

/** Entries a run may visit before it gives up (a mistyped `/` with recursive must not walk a whole disk). */
export const MAX_ENTRIES = 200_000;
/** Files listed in `data.files`; count, ages and sizes still cover all of them. */
const MAX_LISTED = 1000;

const Size = z.union([z.string(), z.number()]);

export const FolderFilter = z.looseObject({
  /** Regular expression the file name must match. */
  regex: z.string().optional(),
  /** Only files at least / at most this old (`1h`, `2d`). */
  minAge: z.string().optional(),
  maxAge: z.string().optional(),
  minSize: Size.optional(),
  maxSize: Size.optional(),
  /** Only files modified after this time (RFC 3339 or `now-1h`). */
  since: z.string().optional(),
});

export const FolderCheckSpec = z.looseObject({
  path: z.string().optional(),
  recursive: z.boolean().optional(),
  filter: FolderFilter.optional(),
  /** The newest matching file must be at least this old. */
  minAge: z.string().optional(),
  /** The newest matching file must be at most this old. */
  maxAge: z.string().optional(),
  minCount: z.number().int().min(0).optional(),
  maxCount: z.number().int().min(0).optional(),
  /** The smallest matching file must be at least this big. */
  minSize: Size.optional(),
  /** The largest matching file must be at most this big. */
  maxSize: Size.optional(),
  /** Free space the filesystem must have. */
  availableSize: Size.optional(),
  /** Size the filesystem must have. */
  totalSize: Size.optional(),
  awsConnection: z.unknown().optional(),
  gcpConnection: z.unknown().optional(),
  smbConnection: z.unknown().optional(),
  sftpConnection: z.unknown().optional(),
});
export type FolderCheckSpec = z.infer<typeof FolderCheckSpec>;

/**
 * `folder`: lists a local directory (optionally recursively; symlinks are listed, not followed), keeps the files
 * that pass `filter`, then tests count, age of the newest file, smallest/largest size and filesystem space.
 * `data` = `{ count, files, oldest, newest, minSize, maxSize, filesSize, availableSize, totalSize }`; each file is
 * `{ name, path, size, modified }` (path relative to `path`). A missing directory counts as zero files (reference).
 */
export const folderCheck: CheckType<FolderCheckSpec> = {
  type: 'folder',
  schema: FolderCheckSpec,
  run: runFolder,
};

interface FileInfo {
  name: string;
  path: string;
  size: number;
  modified: string;
  mtimeMs: number;
}

interface Filter {
  regex?: RegExp;
  minAge?: number;
  maxAge?: number;
  minSize?: number;
  maxSize?: number;
  since?: number;
}

async function runFolder(spec: FolderCheckSpec, ctx: CheckContext): Promise<CheckResult> {
  const start = performance.now();
  try {
    const root = localPath(spec);
    const filter = compileFilter(spec.filter);
    const test = compileTest(spec);
    const now = Date.now();
    const files = await listFiles(root, spec.recursive ?? false, filter, now, ctx);
    const summary = summarize(files);
    let fsInfo: { availableSize?: number; totalSize?: number } = {};
    if (files !== undefined || test.availableSize !== undefined || test.totalSize !== undefined) {
      fsInfo = await statfs(files === undefined ? dirname(root) : root).then(
        (s) => ({ availableSize: s.bavail * s.bsize, totalSize: s.blocks * s.bsize }),
        () => ({}),
      );
    }
    const data: Record<string, unknown> = {
      ...summary,
      files: (files ?? []).slice(0, MAX_LISTED).map(strip),
      truncated: (files?.length ?? 0) > MAX_LISTED,
      exists: files !== undefined,
      ...fsInfo,
    };
    const detail = { path: root, count: summary.count, oldest: summary.oldest, newest: summary.newest, filesSize: summary.filesSize };
    const failure = verdict(test, files ?? [], summary, fsInfo, now);
    if (failure) return failResult(start, failure, { data, detail });
    return passResult(start, { message: plural(summary.count, 'file'), data, detail });
  } catch (err) {
    return resultFromError(start, ctx, err);
  }
}

function localPath(spec: FolderCheckSpec): string {
  const path = spec.path?.trim();
  if (!path) throw new InvalidSpecError('path is required');
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(path)?.[1];
  if (scheme || path.startsWith('\\\\') || spec.sftpConnection || spec.smbConnection) {
    throw new InvalidSpecError(`only local folders are supported; ${scheme ? `${scheme}://` : 'SMB/SFTP'} paths are not`);
  }
  if (!isAbsolute(path)) throw new InvalidSpecError(`path must be absolute: ${path}`);
  return path;
}

function duration(v: string | undefined, field: string): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const ms = parseDuration(v);
  if (ms === undefined) throw new InvalidSpecError(`${field}: invalid duration "${v}" (e.g. 30m, 12h, 7d)`);
  return ms;
}

function size(v: string | number | undefined, field: string): number | undefined {
  if (v === undefined || v === '') return undefined;
  const b = parseSize(v);
  if (b === undefined) throw new InvalidSpecError(`${field}: invalid size "${v}" (e.g. 10kb, 5MB, 1GB)`);
  return b;
}

function compileFilter(f: FolderCheckSpec['filter']): Filter {
  if (!f) return {};
  const out: Filter = {
    minAge: duration(f.minAge, 'filter.minAge'),
    maxAge: duration(f.maxAge, 'filter.maxAge'),
    minSize: size(f.minSize, 'filter.minSize'),
    maxSize: size(f.maxSize, 'filter.maxSize'),
  };
  if (f.regex) {
    try {
      out.regex = new RegExp(f.regex);
    } catch (err) {
      throw new InvalidSpecError(`filter.regex: ${(err as Error).message}`);
    }
  }
  if (f.since?.trim()) {
    const t = parseTime(f.since);
    if (!t) throw new InvalidSpecError(`filter.since: cannot parse "${f.since}" (RFC 3339 or now-1h)`);
    // one second later, as the reference: the newest file's time of the last run can be passed back as since
    out.since = t.getTime() + 1000;
  }
  return out;
}

function compileTest(spec: FolderCheckSpec) {
  return {
    minAge: duration(spec.minAge, 'minAge'),
    maxAge: duration(spec.maxAge, 'maxAge'),
    minCount: spec.minCount,
    maxCount: spec.maxCount,
    minSize: size(spec.minSize, 'minSize'),
    maxSize: size(spec.maxSize, 'maxSize'),
    availableSize: size(spec.availableSize, 'availableSize'),
    totalSize: size(spec.totalSize, 'totalSize'),
    raw: spec,
  };
}

function passes(f: Filter, file: FileInfo, now: number): boolean {
  const age = now - file.mtimeMs;
  if (f.maxAge !== undefined && age > f.maxAge) return false;
  if (f.minAge !== undefined && age < f.minAge) return false;
  if (f.minSize !== undefined && file.size < f.minSize) return false;
  if (f.maxSize !== undefined && file.size > f.maxSize) return false;
  if (f.regex && !f.regex.test(file.name)) return false;
  if (f.since !== undefined && file.mtimeMs < f.since) return false;
  return true;
}

/** The matching files, or undefined when the folder does not exist. */
async function listFiles(root: string, recursive: boolean, filter: Filter, now: number, ctx: CheckContext): Promise<FileInfo[] | undefined> {
  let rootStat;
  try {
    rootStat = await stat(root);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (!rootStat.isDirectory()) throw new Error(`${root} is not a directory`);
  const out: FileInfo[] = [];
  const dirs = [root];
  let visited = 0;
  while (dirs.length) {
    const dir = dirs.pop()!;
    const handle = await opendir(dir, { bufferSize: 256 });
    try {
      for await (const entry of handle as AsyncIterable<Dirent>) {
        if (++visited > MAX_ENTRIES) throw new Error(`more than ${MAX_ENTRIES} entries under ${root}; narrow the path`);
        if (visited % 512 === 0) {
          if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error('aborted');
          await new Promise((r) => setImmediate(r)); // let timers (the runner's timeout) fire during a long walk
        }
        const full = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (recursive) dirs.push(full);
          continue;
        }
        let st;
        try {
          st = await lstat(full);
        } catch {
          continue; // deleted while listing
        }
        const file = { name: entry.name, path: relative(root, full), size: st.size, mtimeMs: st.mtimeMs, modified: st.mtime.toISOString() };
        if (passes(filter, file, now)) out.push(file);
      }
    } finally {
      await handle.close().catch(() => {});
    }
  }
  return out;
}

function strip(f: FileInfo) {
  return { name: f.name, path: f.path, size: f.size, modified: f.modified };
}

function summarize(files: FileInfo[] | undefined) {
  let oldest: FileInfo | undefined;
  let newest: FileInfo | undefined;
  let smallest: FileInfo | undefined;
  let largest: FileInfo | undefined;
  let total = 0;
  for (const f of files ?? []) {
    if (!oldest || f.mtimeMs < oldest.mtimeMs) oldest = f;
    if (!newest || f.mtimeMs > newest.mtimeMs) newest = f;
    if (!smallest || f.size < smallest.size) smallest = f;
    if (!largest || f.size > largest.size) largest = f;
    total += f.size;
  }
  return {
    count: files?.length ?? 0,
    oldest: oldest && strip(oldest),
    newest: newest && strip(newest),
    minSize: smallest && strip(smallest),
    maxSize: largest && strip(largest),
    filesSize: total,
  };
}

/**
 * The reference's tests; the first failing one is the message. Filesystem space is tested even when no file
 * matched (the reference returns early on an empty folder, which would hide a full disk).
 */
function verdict(
  t: ReturnType<typeof compileTest>,
  files: FileInfo[],
  s: ReturnType<typeof summarize>,
  fsInfo: { availableSize?: number; totalSize?: number },
  now: number,
): string | undefined {
  if (t.minCount !== undefined && files.length < t.minCount) return `too few files ${files.length} < ${t.minCount}`;
  if (t.maxCount !== undefined && files.length > t.maxCount) return `too many files ${files.length} > ${t.maxCount}`;
  if (t.availableSize !== undefined) {
    if (fsInfo.availableSize === undefined) return 'available size not supported';
    if (fsInfo.availableSize < t.availableSize) return `available size too small: ${formatSize(fsInfo.availableSize)} < ${t.raw.availableSize}`;
  }
  if (t.totalSize !== undefined) {
    if (fsInfo.totalSize === undefined) return 'total size not supported';
    if (fsInfo.totalSize < t.totalSize) return `total size too small: ${formatSize(fsInfo.totalSize)} < ${t.raw.totalSize}`;
  }
  if (files.length === 0) return undefined; // nothing to run age/size tests on
  const newest = files.find((f) => f.path === s.newest!.path)!;
  const newestAge = now - newest.mtimeMs;
  if (t.minAge !== undefined && newestAge < t.minAge) return `${newest.path} is too new: ${formatDuration(newestAge)} < ${t.raw.minAge}`;
  if (t.maxAge !== undefined && newestAge > t.maxAge) return `${newest.path} is too old: ${formatDuration(newestAge)} > ${t.raw.maxAge}`;
  if (t.minSize !== undefined && s.minSize!.size < t.minSize) return `${s.minSize!.path} is too small: ${formatSize(s.minSize!.size)} < ${t.raw.minSize}`;
  if (t.maxSize !== undefined && s.maxSize!.size > t.maxSize) return `${s.maxSize!.path} is too large: ${formatSize(s.maxSize!.size)} > ${t.raw.maxSize}`;
  return undefined;
}
