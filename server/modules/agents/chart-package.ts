import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { create as createTar } from 'tar';
import { parse } from 'yaml';

/** The chart this console ships (`chart/` at the repository root; the image copies it next to server/). */
export const DEFAULT_CHART_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../chart');

/** Chart.yaml as Helm reads it (the fields the repository index repeats). */
export type ChartMetadata = Record<string, unknown> & { apiVersion: string; name: string; version: string; appVersion?: string };

export interface PackagedChart {
  metadata: ChartMetadata;
  /** `<name>-<version>.tgz`, as `helm package` names it. */
  fileName: string;
  tgz: Buffer;
  /** sha256 of the archive, hex (the index's `digest`). */
  digest: string;
  /** The newest file's modification time: the index's `created` and every entry's mtime (same image → same bytes). */
  created: Date;
}

/** `.helmignore` lines as matchers of a chart-relative path (globs with `*` and `?`; a trailing `/` means a directory). */
function ignoreMatchers(text: string): Array<(path: string, isDir: boolean) => boolean> {
  return text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')).map((raw) => {
    const dirOnly = raw.endsWith('/');
    const pattern = raw.replace(/\/+$/, '').replace(/^\/+/, '');
    const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}$`);
    const byPath = pattern.includes('/');
    return (path: string, isDir: boolean) => {
      if (dirOnly && !isDir) return false;
      return re.test(byPath ? path : path.slice(path.lastIndexOf('/') + 1));
    };
  });
}

/** The chart's files, chart-relative with `/`, sorted (a stable archive), without what .helmignore names. */
async function chartFiles(dir: string): Promise<{ files: string[]; newest: Date }> {
  const ignore = ignoreMatchers(await readFile(join(dir, '.helmignore'), 'utf8').catch(() => ''));
  ignore.push((p) => p === '.helmignore' || p === '.git');
  const files: string[] = [];
  let newest = new Date(0);
  async function walk(abs: string): Promise<void> {
    for (const entry of await readdir(abs, { withFileTypes: true })) {
      const path = relative(dir, join(abs, entry.name)).split(sep).join('/');
      if (ignore.some((m) => m(path, entry.isDirectory()))) continue;
      if (entry.isDirectory()) await walk(join(abs, entry.name));
      else if (entry.isFile()) {
        files.push(path);
        const { mtime } = await stat(join(abs, entry.name));
        if (mtime > newest) newest = mtime;
      }
    }
  }
  await walk(dir);
  return { files: files.sort(), newest: new Date(Math.floor(newest.getTime() / 1000) * 1000) };
}

/** Packages a chart directory in memory as `helm package` would: a gzipped tar whose top directory is the chart's name. */
export async function packageChart(dir: string): Promise<PackagedChart> {
  const metadata = parse(await readFile(join(dir, 'Chart.yaml'), 'utf8')) as ChartMetadata;
  if (!metadata?.name || !metadata.version) throw new Error(`${dir}/Chart.yaml has no name or version`);
  const { files, newest } = await chartFiles(dir);
  const chunks: Buffer[] = [];
  const stream = createTar({ gzip: true, cwd: dir, prefix: metadata.name, portable: true, mtime: newest }, files);
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const tgz = Buffer.concat(chunks);
  return {
    metadata, tgz, created: newest,
    fileName: `${metadata.name}-${metadata.version}.tgz`,
    digest: createHash('sha256').update(tgz).digest('hex'),
  };
}

const cache = new Map<string, Promise<PackagedChart>>();

/** The packaged chart of `dir`, made once per process (a failed attempt is retried on the next call). */
export function packagedChart(dir: string = DEFAULT_CHART_DIR): Promise<PackagedChart> {
  let p = cache.get(dir);
  if (!p) {
    p = packageChart(dir);
    p.catch(() => cache.delete(dir));
    cache.set(dir, p);
  }
  return p;
}

/** The repository's index.yaml document for one chart, its archive at `<repoUrl>/<fileName>`. */
export function repositoryIndex(chart: PackagedChart, repoUrl: string, now = new Date()): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    entries: {
      [chart.metadata.name]: [{
        ...chart.metadata,
        digest: chart.digest,
        created: chart.created.toISOString(),
        urls: [`${repoUrl}/${chart.fileName}`],
      }],
    },
    generated: now.toISOString(),
  };
}
