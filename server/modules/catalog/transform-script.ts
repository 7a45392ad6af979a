import { Script } from 'node:vm';
import type { TransformSpec } from '../../contracts/catalog.js';
import { evalCel } from '../../lib/cel.js';
import { celToNative } from '../../lib/cel-funcs.js';
import { goTemplateError, renderGoTemplate } from '../../lib/go-template.js';
import { runJavascript } from '../../lib/js-sandbox.js';
import { jsonPathValues } from './jsonpath.js';

/**
 * A block's script (config-db's `transform` Script, inlined on `transform`): one document in, the list of item configs
 * out. config-db runs the first one set of `javascript`, `gotemplate` and `expr` (gomplate.RunTemplate); its
 * `jsonpath` is accepted there but never run, so here it is what the name says: JSONPath over the document, each
 * value selected one item. Setting two is refused at save (spec.ts), since all but one would be ignored.
 *
 * Every kind sees `config` (the document) and `result` (`{config, source}`), as config-db's scriptEnv. The output is
 * JSON text (a `javascript`/`expr` value that is not text is taken as it is): a list of objects, or one object (one
 * item; config-db wants a list). JavaScript runs in the QuickJS sandbox (server/lib/js-sandbox.ts: no host objects,
 * 1 s and 32 MiB per run, off the event loop).
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

export const SCRIPT_KINDS = ['javascript', 'gotemplate', 'expr', 'jsonpath'] as const;
export type ScriptKind = (typeof SCRIPT_KINDS)[number];
export const MAX_SCRIPT = 65_536;

/** The script a transform sets (the first, in config-db's order), or undefined. */
export function scriptOf(t: TransformSpec | undefined): { kind: ScriptKind; code: string } | undefined {
  for (const kind of SCRIPT_KINDS) {
    const code = t?.[kind];
    if (typeof code === 'string' && code.trim()) return { kind, code };
  }
  return undefined;
}

/** Which script fields a transform sets (more than one is refused at save). */
export const scriptsSet = (t: TransformSpec | undefined): ScriptKind[] =>
  SCRIPT_KINDS.filter((k) => typeof t?.[k] === 'string' && (t[k] as string).trim() !== '');

/** Null when a script compiles (JavaScript parsed by V8 without running it, a Go template parsed), else why not. */
export function scriptError(kind: 'javascript' | 'gotemplate', code: string): string | null {
  if (code.length > MAX_SCRIPT) return `a script is at most ${MAX_SCRIPT} characters`;
  if (kind === 'gotemplate') {
    const e = goTemplateError(code);
    return e ? `invalid Go template: ${e}` : null;
  }
  try {
    // compiles only; the script itself only ever runs in the QuickJS sandbox
    new Script(code, { filename: 'transform.javascript' });
    return null;
  } catch (err) {
    return `invalid JavaScript: ${(err as Error).message}`;
  }
}

/** A script's output as a list of item configs. */
function asItems(out: unknown, kind: ScriptKind): Obj[] {
  let v = out;
  if (typeof out === 'string') {
    try {
      v = JSON.parse(out);
    } catch {
      throw new Error(`transform.${kind} must return JSON (a list of objects); got ${JSON.stringify(out.slice(0, 60))}`);
    }
  }
  const list = Array.isArray(v) ? v : [v];
  const bad = list.findIndex((x) => !isObj(x));
  if (bad >= 0) throw new Error(`transform.${kind} must return a list of objects; element ${bad} is ${JSON.stringify(list[bad])?.slice(0, 60)}`);
  return list as Obj[];
}

/** Runs the transform's script over one document: the item configs it gives. Throws on a failing script. */
export async function runScript(t: TransformSpec | undefined, config: unknown, source: string): Promise<Obj[] | undefined> {
  const script = scriptOf(t);
  if (!script) return undefined;
  const env = { config, result: { config, source } };
  switch (script.kind) {
    case 'javascript':
      return asItems(await runJavascript(script.code, env), 'javascript');
    case 'gotemplate':
      return asItems(renderGoTemplate(script.code, env), 'gotemplate');
    case 'expr':
      return asItems(celToNative(evalCel(script.code, env)), 'expr');
    case 'jsonpath': {
      const values = jsonPathValues(script.code, config);
      // one list selected (`$.items`) is a list of items, as `items` reads it
      return asItems(values.length === 1 && Array.isArray(values[0]) ? values[0] : values, 'jsonpath');
    }
  }
}
