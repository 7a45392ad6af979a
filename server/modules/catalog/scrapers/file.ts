import { readFile, realpath, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import fg from 'fast-glob';
import { parseAllDocuments } from 'yaml';
import { FileScraper } from '../../../contracts/catalog.js';
import { extractDocuments, type SourceDocument } from '../extract.js';
import { filePathProblem } from '../spec.js';
import { emptyResult, type ScrapeContext, type ScrapeResult, type ScraperType } from '../types.js';

/**
 * `spec.file[]`: files matched by `paths` (fast-glob globs, relative to the console's working directory, as
 * config-db reads them relative to its own, and never outside it: no absolute paths, `..`, dot-files or links out),
 * minus `ignore`; each JSON or YAML document (`---` separated) is one
 * document for extract.ts. A file that cannot be read or parsed is an error and the run is partial (nothing of
 * this scraper is then deleted); `url` (a remote file) is not supported here.
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

async function scrapeFiles(ctx: ScrapeContext, raw: Record<string, unknown>): Promise<ScrapeResult> {
  // what the source returns is all it has: an item it no longer returns is gone (the engine acts on it only when complete)
  const result: ScrapeResult = { ...emptyResult(), deleteMissing: true };
  const block = FileScraper.parse(raw);
  if (block.url) {
    result.errors.push(`url ${block.url}: remote files are not supported; use paths (or an http scraper)`);
    result.complete = false;
  }
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
  const out = extractDocuments(block, docs);
  result.items = out.items;
  result.changes = out.changes;
  result.relationships = out.relationships;
  result.errors.push(...out.errors);
  if (out.errors.length) result.complete = false;
  return result;
}

export const fileScraper: ScraperType = { key: 'file', scrape: scrapeFiles };
