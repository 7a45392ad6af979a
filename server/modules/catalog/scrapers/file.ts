import { readFile, realpath, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import fg from 'fast-glob';
import { parseAllDocuments } from 'yaml';
import { FileScraper } from '../../../contracts/catalog.js';
import { extractDocuments, type SourceDocument } from '../extract.js';
import { filePathProblem } from '../spec.js';
import { emptyResult, type ScrapeContext, type ScrapeResult, type ScraperType } from '../types.js';
import { masked, safeUrl } from './connection.js';
import { fetchLimited, responseDocuments, splitUserinfo } from './http.js';

/**
 * `spec.file[]`: files matched by `paths` (fast-glob globs, relative to the console's working directory, as
 * config-db reads them relative to its own, and never outside it: no absolute paths, `..`, dot-files or links out),
 * minus `ignore`, or the one file at `url` (http/https); each JSON or YAML document (`---` separated) is one
 * document for extract.ts. A file that cannot be read or parsed is an error and the run is partial (nothing of
 * this scraper is then deleted).
 */

/** A file larger than this is refused (an error), not read into memory. */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** Parses JSON or YAML text, every document of a multi-document YAML file. */
export function parseDocuments(text: string, format?: string): unknown[] {
  const f = format?.toLowerCase();
  if (f === 'json') return [JSON.parse(text)];
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  const out: unknown[] = [];
  for (const d of list) {
    if (d.errors.length) throw new Error(d.errors[0].message.split('\n')[0]);
    const v = d.toJS({ maxAliasCount: 100 });
    if (v !== null && v !== undefined) out.push(v);
  }
  return out;
}

/** Each document of `docs` through the block's fields and transforms, into `result`. */
async function extractInto(block: FileScraper, docs: SourceDocument[], result: ScrapeResult): Promise<ScrapeResult> {
  const out = await extractDocuments(block, docs);
  result.items = out.items;
  result.changes = out.changes;
  result.relationships = out.relationships;
  result.errors.push(...out.errors);
  if (out.errors.length) result.complete = false;
  return result;
}

/**
 * `url`: one JSON or YAML file fetched over http(s) as the http scraper fetches (32 MiB, the run's timeout), instead
 * of local `paths` (which in the reference glob inside the download; here the download is that one file). Its
 * source is the URL without userinfo or query; userinfo becomes basic auth and is never shown.
 */
async function remoteFile(ctx: ScrapeContext, block: FileScraper, result: ScrapeResult): Promise<ScrapeResult> {
  const raw = block.url!.trim();
  const where = safeUrl(raw);
  const fail = (msg: string) => {
    result.errors.push(msg);
    result.complete = false;
    return result;
  };
  let target: ReturnType<typeof splitUserinfo>;
  try {
    target = splitUserinfo(raw);
  } catch {
    return fail(`url ${where}: not a URL`);
  }
  const secrets = target.password ? [target.password, encodeURIComponent(target.password)] : [];
  if (!/^https?:$/.test(new URL(target.url).protocol)) return fail(`url ${where}: only http and https URLs are fetched`);
  const headers = new Headers({ accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' });
  if (target.user || target.password) headers.set('authorization', `Basic ${Buffer.from(`${target.user ?? ''}:${target.password ?? ''}`).toString('base64')}`);
  let docs: unknown[];
  try {
    const res = await fetchLimited(target.url, { headers, signal: ctx.signal });
    const format = block.format ?? (new URL(res.url).pathname.toLowerCase().endsWith('.json') ? 'json' : undefined);
    docs = responseDocuments(res.text, format);
  } catch (err) {
    return fail(masked(`url ${where}: ${(err as Error).message}`, secrets));
  }
  return extractInto(block, docs.map((config, i) => ({ config, source: docs.length > 1 ? `${where}#${i}` : where })), result);
}

async function scrapeFiles(ctx: ScrapeContext, raw: Record<string, unknown>): Promise<ScrapeResult> {
  // what the source returns is all it has: an item it no longer returns is gone (the engine acts on it only when complete)
  const result: ScrapeResult = { ...emptyResult(), deleteMissing: true };
  const block = FileScraper.parse(raw);
  if (block.url) return remoteFile(ctx, block, result);
  const cwd = await realpath(process.cwd());
  let files: string[] = [];
  // the same rule as at save (a spec stored before it, or written straight into the table, is judged again here)
  const globs = (block.paths ?? []).filter((g) => {
    const problem = filePathProblem(g);
    if (problem) {
      result.errors.push(`paths ${g}: ${problem}`);
      result.complete = false;
    }
    return !problem;
  });
  if (globs.length) {
    try {
      files = (await fg(globs, { cwd, ignore: block.ignore ?? [], onlyFiles: true, dot: false, followSymbolicLinks: false, absolute: false })).sort();
    } catch (err) {
      result.errors.push(`paths: ${(err as Error).message}`);
      result.complete = false;
      return result;
    }
  }
  const docs: SourceDocument[] = [];
  for (const file of files) {
    if (ctx.signal.aborted) {
      result.errors.push('timed out before every file was read');
      result.complete = false;
      break;
    }
    try {
      const path = await realpath(resolve(cwd, file));
      // a symbolic link matched inside the directory may point anywhere: only what really lies inside is read
      if (!path.startsWith(cwd + sep)) throw new Error('links outside the console\'s working directory are not read');
      if ((await stat(path)).size > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB`);
      const text = await readFile(path, { encoding: 'utf8', signal: ctx.signal });
      const format = block.format ?? (file.toLowerCase().endsWith('.json') ? 'json' : undefined);
      const parsed = parseDocuments(text, format);
      parsed.forEach((config, i) => docs.push({ config, source: parsed.length > 1 ? `${file}#${i}` : file }));
    } catch (err) {
      result.errors.push(`${file}: ${(err as Error).message}`);
      result.complete = false;
    }
  }
  return extractInto(block, docs, result);
}

export const fileScraper: ScraperType = { key: 'file', scrape: scrapeFiles };
