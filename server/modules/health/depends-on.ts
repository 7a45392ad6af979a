import { z } from 'zod';

/**
 * `dependsOn` between the checks of one canary (the reference's Description.DependsOn): a check runs after the checks
 * it names have finished in the same occurrence, and sees what those that passed returned as `outputs.<name>`.
 * Save-time validation, run order and the outputs' shape live here; scheduler.ts and runner.ts use them.
 */

type Problem = { path: string; message: string };

/**
 * `dependsOn` as written: names of checks of the same canary. Checked by spec.ts rather than declared among the common
 * fields, so the Canary CRD (generated from those) keeps accepting it as before.
 */
export const DependsOnList = z.array(z.string().trim().min(1, 'a dependsOn entry names a check').max(255)).max(50);

/** The names a check spec lists in `dependsOn` ([] when none, or not a list of strings). */
export function dependsOnOf(spec: Record<string, unknown> | null | undefined): string[] {
  // a check row without a spec (written by hand, or pushed by an older agent) has no dependencies, not a crash
  const v = spec?.dependsOn;
  return Array.isArray(v) ? v.filter((n): n is string => typeof n === 'string') : [];
}

/** A check as saved: its type, name, the path of its spec entry and its `dependsOn`. */
export interface DependsOnEntry { type: string; name: string; where: string; dependsOn: string[] }

/**
 * Problems with the canary's `dependsOn`, by path: a name that is no check of this canary, a name two checks share
 * (of different types: the reference keys checks by name only), and a cycle (the reference fails every run of such
 * a canary with "circular dependency detected"; here it is refused at save).
 */
export function dependsOnProblems(checks: DependsOnEntry[]): Problem[] {
  if (!checks.some((c) => c.dependsOn.length)) return [];
  const byName = new Map<string, DependsOnEntry[]>();
  for (const c of checks) byName.set(c.name, [...(byName.get(c.name) ?? []), c]);
  const problems: Problem[] = [];
  const edges = new Map<DependsOnEntry, DependsOnEntry[]>();
  for (const c of checks) {
    const targets: DependsOnEntry[] = [];
    c.dependsOn.forEach((name, i) => {
      const path = `${c.where}.dependsOn.${i}`;
      const found = byName.get(name) ?? [];
      if (!found.length) problems.push({ path, message: `no check of this canary is named "${name}"` });
      else if (found.length > 1) {
        problems.push({ path, message: `"${name}" names ${found.length} checks (${found.map((f) => f.type).join(', ')}): give them distinct names` });
      } else if (found[0] === c) problems.push({ path, message: 'a check cannot depend on itself' });
      else targets.push(found[0]);
    });
    edges.set(c, targets);
  }
  if (problems.length) return problems;
  for (const cycle of cyclesOf(checks, edges)) {
    problems.push({ path: `${cycle[0].where}.dependsOn`, message: `dependsOn makes a cycle: ${[...cycle, cycle[0]].map((c) => c.name).join(' → ')}` });
  }
  return problems;
}

/** One cycle per strongly tied group, found by depth-first search (each starting at the first check in it). */
function cyclesOf<T>(nodes: T[], edges: Map<T, T[]>): T[][] {
  const state = new Map<T, 'open' | 'done'>();
  const stack: T[] = [];
  const cycles: T[][] = [];
  const visit = (n: T) => {
    state.set(n, 'open');
    stack.push(n);
    for (const m of edges.get(n) ?? []) {
      if (state.get(m) === 'open') cycles.push(stack.slice(stack.indexOf(m)));
      else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of nodes) if (!state.has(n)) visit(n);
  return cycles;
}

type Named = { id: string; name: string; spec: Record<string, unknown> };

/**
 * Each check's direct dependencies among `checks` (by name; a name that matches nothing, or more than one check, is
 * ignored here: the spec is validated at save and again before each run).
 */
export function dependenciesOf<T extends Named>(checks: T[]): Map<string, T[]> {
  const byName = new Map<string, T[]>();
  for (const c of checks) byName.set(c.name, [...(byName.get(c.name) ?? []), c]);
  return new Map(checks.map((c) => [c.id, dependsOnOf(c.spec).flatMap((n) => {
    const found = byName.get(n) ?? [];
    return found.length === 1 && found[0] !== c ? found : [];
  })]));
}

/**
 * The checks in an order where each comes after those of its dependencies that are in the list. Checks in a cycle (a
 * stored spec that predates the save-time refusal) come last, in their given order.
 */
export function inDependencyOrder<T extends Named>(checks: T[], deps = dependenciesOf(checks)): T[] {
  const listed = new Set(checks.map((c) => c.id));
  const placed = new Set<string>();
  const out: T[] = [];
  let progress = true;
  while (progress) {
    progress = false;
    for (const c of checks) {
      if (placed.has(c.id) || !(deps.get(c.id) ?? []).every((d) => placed.has(d.id) || !listed.has(d.id))) continue;
      placed.add(c.id);
      out.push(c);
      progress = true;
    }
  }
  return [...out, ...checks.filter((c) => !placed.has(c.id))];
}

/** A check's dependencies, direct and not, each once. */
export function transitiveDependencies<T extends Named>(id: string, deps: Map<string, T[]>): T[] {
  const seen = new Map<string, T>();
  const walk = (at: string) => {
    for (const d of deps.get(at) ?? []) {
      if (seen.has(d.id) || d.id === id) continue;
      seen.set(d.id, d);
      walk(d.id);
    }
  };
  walk(id);
  return [...seen.values()];
}

/**
 * What `outputs.<name>` holds for a dependency that passed, as the reference builds it (Context.GetOutputs): `pass`,
 * `message`, `duration`, then the result's data fields (`code`, `json`, `headers`, `stdout`...) that do not clash.
 */
export function outputOf(r: { pass: boolean; message?: string; duration: number; data: Record<string, unknown> }): Record<string, unknown> {
  return { ...r.data, pass: r.pass, message: r.message ?? '', duration: r.duration };
}

/** Fields the reference renders as templates before a run (`template:"true"`) that may refer to `outputs`. */
const TEMPLATED_FIELDS = ['url', 'endpoint', 'body', 'addr', 'host', 'query', 'index', 'path'] as const;
/** `$(outputs.a.b)`, `$(.outputs.a.b)`, `{{ outputs.a.b }}`, `{{ .outputs.a.b }}`: a path into a dependency's output. */
const OUTPUT_REF = /\$\(\s*\.?outputs((?:\.[A-Za-z_][\w-]*)+)\s*\)|\{\{-?\s*\.?outputs((?:\.[A-Za-z_][\w-]*)+)\s*-?\}\}/g;

/** An output reference that cannot be filled: the run is invalid, rather than a request sent with the text as written. */
export class OutputRefError extends Error {}

/**
 * Fills references to `outputs` in a check's templated fields (url, body, ...) from its dependencies' outputs.
 * Strings print as they are, other values as JSON. A reference to a dependency that has no output (it failed, or was
 * not run) or to a missing field throws OutputRefError. Returns the spec itself when it refers to no output.
 */
export function fillOutputs(spec: Record<string, unknown>, outputs: Record<string, unknown> | undefined): Record<string, unknown> {
  let out = spec;
  for (const field of TEMPLATED_FIELDS) {
    const raw = spec[field];
    if (typeof raw !== 'string' || !raw.includes('outputs')) continue;
    const filled = raw.replace(OUTPUT_REF, (ref, a: string | undefined, b: string | undefined) => {
      const path = (a ?? b ?? '').slice(1).split('.');
      if (!outputs || !(path[0] in outputs)) {
        throw new OutputRefError(`${field}: ${ref}: check "${path[0]}" has no output in this run (it did not pass, or is not in dependsOn)`);
      }
      let v: unknown = outputs;
      for (const k of path) {
        v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
        if (v === undefined) throw new OutputRefError(`${field}: ${ref}: outputs.${path.join('.')} is not in the output of "${path[0]}"`);
      }
      return typeof v === 'string' ? v : JSON.stringify(v);
    });
    if (filled !== raw) out = { ...out, [field]: filled };
  }
  return out;
}
