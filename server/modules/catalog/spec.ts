import { z } from 'zod';
import {
  REFERENCE_SCRAPER_KEYS, SCRAPER_BLOCKS, ScrapeConfigFields, ScrapeConfigShape, type CommonScraper,
} from '../../contracts/catalog.js';
import { celSyntaxError, parseLongDuration } from '../../lib/cel.js';
import { parseGoDuration, parseSchedule } from '../health/schedule.js';
import { isJsonPath, jsonPathError } from './jsonpath.js';
import { scriptError, scriptsSet } from './transform-script.js';
import { templateTextError } from './transform-templates.js';

/**
 * The ScrapeConfig spec as the server judges it: the contract's shape (server/contracts/catalog.ts) plus what a shape
 * cannot say: the schedule parses, every JSONPath and CEL expression compiles, retention ages are durations, and a
 * scraper type this console does not run (aws, trivy...) is refused by name. Each problem names its path
 * (`spec.file.0.transform.expr`, the dotted form every spec problem of the product uses), so a console write is a 400 naming it and a CR's status says where it is wrong.
 */

type Path = (string | number)[];
export interface SpecProblem { path: Path; message: string }
type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const TOP_LEVEL = new Set([...Object.keys(ScrapeConfigFields.shape)]);
// the contract's typed blocks are the supported types (scrapers.ts SUPPORTED_SCRAPERS lists the same four; it is not
// imported here: the registry imports the extractors, and the kubernetes one imports kinds.ts, which imports this file)
const SUPPORTED_SCRAPERS = Object.keys(SCRAPER_BLOCKS);
const supported = () => SUPPORTED_SCRAPERS.join(', ');

/**
 * `spec.file.0.transform.expr`: a place in the spec as every spec problem names it (console 400s, a CR's status, run
 * errors; health and topology write `spec.http.0.name` the same way).
 */
export function specPathText(path: readonly PropertyKey[]): string {
  return ['spec', ...path.map(String)].join('.');
}

/** Every semantic problem of a spec (shape problems are zod's); empty when it is fine. */
export function scrapeSpecProblems(spec: Obj): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const add = (path: Path, message: string) => problems.push({ path, message });

  for (const key of Object.keys(spec)) {
    if ((REFERENCE_SCRAPER_KEYS as readonly string[]).includes(key) && !SUPPORTED_SCRAPERS.includes(key)) {
      add([key], `the ${key} scraper is not supported; supported: ${supported()}`);
    } else if (!TOP_LEVEL.has(key)) {
      add([key], `unknown field; a ScrapeConfig spec has schedule, retention, full, logLevel, timeout, custom and the scrapers ${supported()}`);
    }
  }
  if (typeof spec.schedule === 'string' && spec.schedule.trim()) {
    try {
      parseSchedule(spec.schedule);
    } catch (err) {
      add(['schedule'], (err as Error).message);
    }
  }
  if (typeof spec.timeout === 'string') {
    try {
      parseGoDuration(spec.timeout);
    } catch (err) {
      add(['timeout'], (err as Error).message);
    }
  }
  retentionProblems(spec.retention, add);
  for (const key of Object.keys(SCRAPER_BLOCKS)) {
    const blocks = spec[key];
    if (!Array.isArray(blocks)) continue;
    blocks.forEach((block, i) => {
      if (!isObj(block)) return;
      blockProblems(block as CommonScraper, [key, i], add);
      typeProblems(key, block, [key, i], add);
    });
  }
  return problems;
}

function retentionProblems(retention: unknown, add: (p: Path, m: string) => void): void {
  if (!isObj(retention)) return;
  const age = (v: unknown, path: Path) => {
    if (typeof v === 'string' && parseLongDuration(v) === null) add(path, `invalid age "${v.slice(0, 40)}" (expected e.g. 7d, 24h, 30m)`);
  };
  age(retention.staleItemAge, ['retention', 'staleItemAge']);
  if (Array.isArray(retention.changes)) retention.changes.forEach((c, i) => isObj(c) && age(c.age, ['retention', 'changes', i, 'age']));
  if (Array.isArray(retention.types)) {
    retention.types.forEach((t, i) => {
      if (!isObj(t)) return;
      for (const f of ['createdAge', 'updatedAge', 'deletedAge']) age(t[f], ['retention', 'types', i, f]);
    });
  }
}

/** The fields every scraper block shares: JSONPath fields (when `$`-prefixed or always), CEL in transforms. */
function blockProblems(b: CommonScraper, at: Path, add: (p: Path, m: string) => void): void {
  const path = (p: string) => {
    const v = (b as Obj)[p];
    if (isJsonPath(v)) jp(v, [...at, p]);
  };
  const jp = (v: unknown, where: Path) => {
    if (typeof v !== 'string') return;
    const e = jsonPathError(v);
    if (e) add(where, e);
  };
  const cel = (v: unknown, where: Path) => {
    if (typeof v !== 'string' || !v.trim()) return;
    const e = celSyntaxError(v);
    if (e) add(where, `invalid CEL: ${e}`);
  };
  for (const f of ['id', 'name', 'type', 'class', 'description', 'status', 'health']) path(f);
  if (typeof b.items === 'string') jp(b.items, [...at, 'items']);
  b.createFields?.forEach((f, i) => isJsonPath(f) && jp(f, [...at, 'createFields', i]));
  b.deleteFields?.forEach((f, i) => isJsonPath(f) && jp(f, [...at, 'deleteFields', i]));
  for (const [k, v] of Object.entries(b.labels ?? {})) if (isJsonPath(v)) jp(v, [...at, 'labels', k]);
  if (Array.isArray(b.tags)) {
    b.tags.forEach((t, i) => {
      if (t.jsonpath) jp(t.jsonpath, [...at, 'tags', i, 'jsonpath']);
    });
  } else if (isObj(b.tags)) {
    for (const [k, v] of Object.entries(b.tags)) if (isJsonPath(v)) jp(v, [...at, 'tags', k]);
  }
  const tpl = (v: unknown, where: Path) => {
    const e = typeof v === 'string' ? templateTextError(v) : null;
    if (e) add(where, `invalid Go template: ${e}`);
  };
  b.properties?.forEach((p, i) => {
    const pp = [...at, 'properties', i];
    cel(p.filter, [...pp, 'filter']);
    for (const [k, v] of Object.entries(p)) if (k !== 'filter') tpl(v, [...pp, k]);
    p.links?.forEach((l, j) => isObj(l) && Object.entries(l).forEach(([k, v]) => tpl(v, [...pp, 'links', j, k])));
  });
  const t = b.transform;
  if (!t) return;
  const tr = [...at, 'transform'];
  const scripts = scriptsSet(t);
  if (scripts.length > 1) add([...tr, scripts[1]], `set one script: ${scripts.join(' and ')} are set, and only ${scripts[0]} would run`);
  for (const kind of ['javascript', 'gotemplate'] as const) {
    const code = t[kind];
    const e = typeof code === 'string' && code.trim() ? scriptError(kind, code) : null;
    if (e) add([...tr, kind], e);
  }
  for (const key of ['locations', 'aliases'] as const) {
    t[key]?.forEach((l, i) => {
      cel(l.filter, [...tr, key, i, 'filter']);
      l.values?.forEach((v, j) => tpl(v, [...tr, key, i, 'values', j]));
    });
  }
  cel(t.expr, [...tr, 'expr']);
  if (t.jsonpath) jp(t.jsonpath, [...tr, 'jsonpath']);
  t.exclude?.forEach((e, i) => jp(e.jsonpath, [...tr, 'exclude', i, 'jsonpath']));
  t.mask?.forEach((m, i) => {
    jp(m.jsonpath, [...tr, 'mask', i, 'jsonpath']);
    cel(m.selector, [...tr, 'mask', i, 'selector']);
  });
  t.relationship?.forEach((r, i) => {
    const rp = [...tr, 'relationship', i];
    cel(r.filter, [...rp, 'filter']);
    cel(r.expr, [...rp, 'expr']);
    for (const f of ['id', 'external_id', 'name', 'namespace', 'type', 'agent', 'scope'] as const) cel(r[f]?.expr, [...rp, f, 'expr']);
  });
  t.changes?.mapping?.forEach((m, i) => cel(m.filter, [...tr, 'changes', 'mapping', i, 'filter']));
  t.changes?.exclude?.forEach((e, i) => cel(e, [...tr, 'changes', 'exclude', i]));
}

/**
 * A file scraper reads files on the console's host into the catalog, which every role reads: its globs stay inside
 * the console's working directory (relative, no `..`, no `.git`, no dot-files such as `.env`), whoever writes the spec.
 */
export function filePathProblem(glob: string): string | null {
  const g = glob.trim().replaceAll('\\', '/');
  if (g.startsWith('/') || /^[A-Za-z]:/.test(g) || g.startsWith('~')) return 'must be relative to the console\'s working directory';
  if (g.split('/').some((seg) => seg === '..')) return 'must stay inside the console\'s working directory (no ..)';
  const segs = g.split('/');
  if (segs.includes('.git')) return '.git is not read (its config may hold credentials)';
  // a wildcard never matches a dot-file (fast-glob's dot: false); naming one (.env, .npmrc) is refused too
  if (/^\.[^.*?[{]/.test(segs[segs.length - 1])) return 'dot-files (.env, .npmrc...) are not read';
  return null;
}

/** What a type's block needs beyond the shape. */
function typeProblems(key: string, b: Obj, at: Path, add: (p: Path, m: string) => void): void {
  const has = (f: string) => (typeof b[f] === 'string' && (b[f] as string).trim() !== '') || (Array.isArray(b[f]) && (b[f] as unknown[]).length > 0);
  if (key === 'file' && !has('paths') && !has('url')) add([...at, 'paths'], 'paths (globs) or url is required');
  if (key === 'file' && Array.isArray(b.paths)) {
    b.paths.forEach((p, i) => {
      const problem = typeof p === 'string' ? filePathProblem(p) : null;
      if (problem) add([...at, 'paths', i], problem);
    });
  }
  if (key === 'http' && !has('url') && !has('connection')) add([...at, 'url'], 'url or connection is required');
  if (key === 'file' && has('url') && !/^https?:\/\//i.test(String(b.url).trim())) {
    add([...at, 'url'], 'only http and https URLs are fetched (one JSON or YAML file)');
  }
  if (key === 'http' && isObj(b.pagination)) {
    const pg = b.pagination;
    for (const f of ['nextPageExpr', 'reduceExpr']) {
      const e = typeof pg[f] === 'string' && pg[f].trim() ? celSyntaxError(pg[f]) : null;
      if (e) add([...at, 'pagination', f], `invalid CEL: ${e}`);
    }
    if (typeof pg.delay === 'string' && pg.delay.trim()) {
      try {
        parseGoDuration(pg.delay);
      } catch (err) {
        add([...at, 'pagination', 'delay'], (err as Error).message);
      }
    }
  }
  // a kubernetes block's items are built from the objects, never from a script's output
  if (key === 'kubernetes' && isObj(b.transform)) {
    for (const k of scriptsSet(b.transform)) add([...at, 'transform', k], `transform.${k} is not run on kubernetes objects; use transform.exclude, mask or relationship`);
  }
  if (key === 'kubernetes' && Array.isArray(b.relationships)) {
    b.relationships.forEach((r, i) => {
      if (!isObj(r)) return;
      for (const f of ['kind', 'name', 'namespace']) {
        const expr = isObj(r[f]) ? (r[f] as Obj).expr : undefined;
        if (typeof expr === 'string' && expr.trim()) {
          const e = celSyntaxError(expr);
          if (e) add([...at, 'relationships', i, f, 'expr'], `invalid CEL: ${e}`);
        }
      }
    });
  }
}

/**
 * The ScrapeConfig spec: the contract's typed shape (it generates the CRD's schema) and the semantic checks above.
 * Unknown keys are kept by the shape and reported by the refinement, so a CR with one is Invalid rather than trimmed.
 */
export const ScrapeConfigSpec = ScrapeConfigShape.superRefine((spec, ctx) => {
  for (const p of scrapeSpecProblems(spec as Obj)) ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
});

/** The spec as a JSON Schema (draft-07, as monaco-yaml reads it), from the same zod: top-level keys closed. */
export function scrapeConfigJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ScrapeConfigFields.strict(), { io: 'input', unrepresentable: 'any', target: 'draft-7' });
  return { ...schema, $id: 'scrape_config.schema.json', title: 'ScrapeConfig spec' };
}
