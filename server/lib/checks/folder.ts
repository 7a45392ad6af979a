import type { Dirent, Stats } from 'node:fs';
import { lstat, opendir, stat, statfs } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { z } from 'zod';
import { compileGlob, isGlob, type GlobPath } from './folder-glob.js';
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
  /** A directory, or a glob whose matching files are listed (`*`, `?`, `[a-z]`, `{a,b}`; `**` for any depth). */
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
 * `folder`: lists a local directory (optionally recursively) or the files a glob path matches, keeps the files that
 * pass `filter`, then tests count, age of the newest file, smallest/largest size and filesystem space. A symlink is
 * listed with its target's size and time (as the reference's os.Stat); a symlinked directory is neither listed nor
 * entered. `data` = `{ count, files, oldest, newest, smallest, largest, filesSize, availableSize, totalSize,
 * errorType }` plus the console's older names `minSize`/`maxSize` and the reference's `size` (= totalSize); each
 * file is `{ name, path, size, mode, modified, is_dir }` (path relative to the folder or the glob's base). A missing
 * directory counts as zero files (reference); an empty listing reports the directory's own time as oldest/newest.
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
  mode: string;
  modified: string;
  is_dir: boolean;
  mtimeMs: number;
}

/**
 * The reference's error types (checks/folder_check.go), in `data.errorType` for templates and custom metrics
 * (`errorType != "" ? errorType : "unknown"`); empty when the check passes.
 */
const ERROR_TYPES = {
  minCount: 'min_count', maxCount: 'max_count', availableSize: 'available_size', totalSize: 'total_size',
  minAge: 'min_age', maxAge: 'max_age', minSize: 'min_size', maxSize: 'max_size',
} as const;
type Failure = { type: string; message: string };

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
  let errorType = 'configuration_error';
  try {
    const root = localPath(spec);
    const filter = compileFilter(spec.filter);
    const test = compileTest(spec);
    const now = Date.now();
    errorType = 'listing_error';
    const glob = isGlob(root) ? compileGlob(root) : undefined;
    const listed = glob ? await listGlob(glob, filter, now, ctx) : await listFiles(root, spec.recursive ?? false, filter, now, ctx);
    const files = listed?.files;
    const summary = summarize(files, listed?.dir);
    let fsInfo: { availableSize?: number; totalSize?: number } = {};
    if (files !== undefined || test.availableSize !== undefined || test.totalSize !== undefined) {
      const on = glob?.base ?? root;
      fsInfo = await statfs(files === undefined ? dirname(on) : on).then(
        (s) => ({ availableSize: s.bavail * s.bsize, totalSize: s.blocks * s.bsize }),
        () => ({}),
      );
    }
    const failure = verdict(test, files ?? [], summary, fsInfo, now);
    const data: Record<string, unknown> = {
      ...summary,
      files: (files ?? []).slice(0, MAX_LISTED).map(strip),
      truncated: (files?.length ?? 0) > MAX_LISTED,
      exists: files !== undefined,
      ...fsInfo,
      ...(fsInfo.totalSize !== undefined && { size: fsInfo.totalSize }),
      errorType: failure?.type ?? '',
    };
    const detail = { path: root, count: summary.count, oldest: summary.oldest, newest: summary.newest, filesSize: summary.filesSize };
    if (failure) return failResult(start, failure.message, { data, detail });
    return passResult(start, { message: plural(summary.count, 'file'), data, detail });
  } catch (err) {
    const r = resultFromError(start, ctx, err);
    return { ...r, data: { ...r.data, errorType } };
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

interface Listing {
  files: FileInfo[];
  /** The folder's own entry: its time stands in for oldest/newest when nothing is listed (reference). */
  dir?: FileInfo;
}

/** The matching files of a directory, or undefined when it does not exist. */
async function listFiles(root: string, recursive: boolean, filter: Filter, now: number, ctx: CheckContext): Promise<Listing | undefined> {
  let rootStat;
  try {
    rootStat = await stat(root);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (!rootStat.isDirectory()) throw new Error(`${root} is not a directory`);
  const files: FileInfo[] = [];
  await walk(root, ctx, (full, st, isDir) => {
    if (!isDir && passes(filter, fileInfo(root, full, st), now)) files.push(fileInfo(root, full, st));
    return recursive;
  });
  return { files, dir: fileInfo(dirname(root), root, rootStat) };
}

/**
 * The files a glob matches below its base (directories match too but are not listed, as the reference lists them
 * only for `recursive`, which a glob does not need); undefined when the base does not exist.
 */
async function listGlob(glob: GlobPath, filter: Filter, now: number, ctx: CheckContext): Promise<Listing | undefined> {
  const base = await stat(glob.base).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
    throw err;
  });
  if (!base?.isDirectory()) return undefined;
  const files: FileInfo[] = [];
  await walk(glob.base, ctx, (full, st, isDir, depth) => {
    const rel = relative(glob.base, full);
    if (!isDir && glob.regex.test(rel)) {
      const f = fileInfo(glob.base, full, st);
      if (passes(filter, f, now)) files.push(f);
    }
    return glob.depth === undefined || depth < glob.depth;
  });
  return { files };
}

/**
 * Visits every entry below `root` (bounded by MAX_ENTRIES, abortable); a symlink is seen as its target (a dangling
 * one as itself) and a symlinked directory is never entered. `visit` answers whether to enter a directory.
 */
async function walk(
  root: string, ctx: CheckContext,
  visit: (full: string, st: Stats, isDir: boolean, depth: number) => boolean,
): Promise<void> {
  const dirs: Array<[string, number]> = [[root, 0]];
  let visited = 0;
  while (dirs.length) {
    const [dir, depth] = dirs.pop()!;
    let handle;
    try {
      handle = await opendir(dir, { bufferSize: 256 });
    } catch (err) {
      if (dir !== root && ['EACCES', 'ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '')) continue;
      throw err;
    }
    try {
      for await (const entry of handle as AsyncIterable<Dirent>) {
        if (++visited > MAX_ENTRIES) throw new Error(`more than ${MAX_ENTRIES} entries under ${root}; narrow the path`);
        if (visited % 512 === 0) {
          if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error('aborted');
          await new Promise((r) => setImmediate(r)); // let timers (the runner's timeout) fire during a long walk
        }
        const full = join(dir, entry.name);
        let st;
        try {
          st = await stat(full).catch(() => lstat(full));
        } catch {
          continue; // deleted while listing
        }
        const isDir = st.isDirectory();
        const enter = visit(full, st, isDir, depth + 1);
        if (isDir && enter && !entry.isSymbolicLink()) dirs.push([full, depth + 1]);
      }
    } finally {
      await handle.close().catch(() => {});
    }
  }
}

function fileInfo(root: string, full: string, st: Stats): FileInfo {
  const name = full.slice(full.lastIndexOf('/') + 1) || full;
  return {
    name, path: relative(root, full), size: st.size, mode: goFileMode(st), modified: st.mtime.toISOString(),
    is_dir: st.isDirectory(), mtimeMs: st.mtimeMs,
  };
}

/** A mode as Go's fs.FileMode.String() prints it (`-rw-r--r--`, `drwxr-xr-x`, `dtrwxrwxrwx`), as the reference lists it. */
export function goFileMode(st: Pick<Stats, 'mode' | 'isDirectory' | 'isSymbolicLink' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>): string {
  let kind = '';
  if (st.isDirectory()) kind += 'd';
  if (st.isSymbolicLink()) kind += 'L';
  if (st.isBlockDevice() || st.isCharacterDevice()) kind += 'D';
  if (st.isFIFO()) kind += 'p';
  if (st.isSocket()) kind += 'S';
  if (st.mode & 0o4000) kind += 'u';
  if (st.mode & 0o2000) kind += 'g';
  if (st.isCharacterDevice()) kind += 'c';
  if (st.mode & 0o1000) kind += 't';
  const perm = [...'rwxrwxrwx'].map((c, i) => (st.mode & (1 << (8 - i)) ? c : '-')).join('');
  return (kind || '-') + perm;
}

function strip(f: FileInfo) {
  return { name: f.name, path: f.path, size: f.size, mode: f.mode, modified: f.modified, is_dir: f.is_dir };
}

function summarize(files: FileInfo[] | undefined, dir?: FileInfo) {
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
  if (!files?.length && dir) oldest = newest = dir;
  return {
    count: files?.length ?? 0,
    oldest: oldest && strip(oldest),
    newest: newest && strip(newest),
    smallest: smallest && strip(smallest),
    largest: largest && strip(largest),
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
): Failure | undefined {
  const fail = (type: string, message: string): Failure => ({ type, message });
  const E = ERROR_TYPES;
  if (t.minCount !== undefined && files.length < t.minCount) return fail(E.minCount, `too few files ${files.length} < ${t.minCount}`);
  if (t.maxCount !== undefined && files.length > t.maxCount) return fail(E.maxCount, `too many files ${files.length} > ${t.maxCount}`);
  if (t.availableSize !== undefined) {
    if (fsInfo.availableSize === undefined) return fail('configuration_error', 'available size not supported');
    if (fsInfo.availableSize < t.availableSize) {
      return fail(E.availableSize, `available size too small: ${formatSize(fsInfo.availableSize)} < ${t.raw.availableSize}`);
    }
  }
  if (t.totalSize !== undefined) {
    if (fsInfo.totalSize === undefined) return fail('configuration_error', 'total size not supported');
    if (fsInfo.totalSize < t.totalSize) return fail(E.totalSize, `total size too small: ${formatSize(fsInfo.totalSize)} < ${t.raw.totalSize}`);
  }
  if (files.length === 0) return undefined; // nothing to run age/size tests on
  const newest = files.find((f) => f.path === s.newest!.path)!;
  const newestAge = now - newest.mtimeMs;
  if (t.minAge !== undefined && newestAge < t.minAge) return fail(E.minAge, `${newest.path} is too new: ${formatDuration(newestAge)} < ${t.raw.minAge}`);
  if (t.maxAge !== undefined && newestAge > t.maxAge) return fail(E.maxAge, `${newest.path} is too old: ${formatDuration(newestAge)} > ${t.raw.maxAge}`);
  if (t.minSize !== undefined && s.minSize!.size < t.minSize) {
    return fail(E.minSize, `${s.minSize!.path} is too small: ${formatSize(s.minSize!.size)} < ${t.raw.minSize}`);
  }
  if (t.maxSize !== undefined && s.maxSize!.size > t.maxSize) {
    return fail(E.maxSize, `${s.maxSize!.path} is too large: ${formatSize(s.maxSize!.size)} > ${t.raw.maxSize}`);
  }
  return undefined;
}
