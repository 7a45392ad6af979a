import { z } from 'zod';
import { PlaybookFields, PlaybookSpec, PlaybookTriggers } from '../../contracts/playbooks.js';
import { BadRequestError, ConflictError } from '../../lib/errors.js';
import { pathText, templateIssues } from './templates.js';

/**
 * The Playbook spec as both doors judge it (issue 14): the contract's shape and structural checks, then every
 * template, CEL expression and schedule (./templates.ts), each problem by its path (`spec.actions[1].gitops: …`).
 * A console save answers 400 with every problem; a CR that fails keeps its last valid row and reports them on its
 * status (./cr-status.ts). The webhook path is unique among live playbooks: a unique index (0071), 409 naming it.
 */

type Row = Record<string, unknown>;
const isObj = (v: unknown): v is Row => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The checked spec: the kinds registry's Playbook schema (its CRD comes from the typed fields). Template and CEL
 * problems are reported even when the shape has problems too, so an editor marks them all at once.
 */
export const CheckedPlaybookSpec = PlaybookSpec.check(z.superRefine((spec: unknown, ctx) => {
  const given = withOnKey(spec);
  if (given !== spec && isObj(given)) {
    const on = PlaybookTriggers.safeParse(given.on);
    for (const i of on.success ? [] : on.error.issues) ctx.addIssue({ code: 'custom', path: ['on', ...i.path], message: i.message, input: undefined });
  }
  for (const p of templateIssues(given)) ctx.addIssue({ code: 'custom', path: p.path, message: p.message, input: undefined });
}, { when: () => true }));

/**
 * The spec with its triggers under `on`: YAML 1.1 readers (kubectl, Go's yaml) turn the key `on` into `true`, so a CR
 * written as the reference documents it arrives with a "true" key. The reconciler stores it as `on` (store.ts).
 */
export function withOnKey<T>(spec: T): T {
  if (!isObj(spec) || 'on' in spec || !isObj(spec.true)) return spec;
  const { true: on, ...rest } = spec;
  return { ...rest, on } as T;
}

export interface SpecProblem { path: string; message: string }

/** Every problem of a spec by its path, the first per path; empty when the spec is valid. */
export function playbookSpecProblems(spec: unknown): SpecProblem[] {
  if (!isObj(spec)) return [{ path: 'spec', message: 'spec must be an object' }];
  const r = CheckedPlaybookSpec.safeParse(spec);
  if (r.success) return [];
  const seen = new Map<string, string>();
  for (const issue of r.error.issues) {
    const path = pathText(issue.path);
    if (!seen.has(path)) seen.set(path, issue.message);
  }
  return [...seen].map(([path, message]) => ({ path, message }));
}

/** 400 with every problem (details: path → message), the first in the message; nothing when the spec is valid. */
export function assertPlaybookSpec(spec: unknown): void {
  const problems = playbookSpecProblems(spec);
  if (!problems.length) return;
  throw new BadRequestError(`invalid Playbook spec: ${problems[0].path}: ${problems[0].message}`,
    Object.fromEntries(problems.map((p) => [p.path, p.message])));
}

/** The webhook path of a spec, if it has one. */
export function webhookPathOf(given: unknown): string | undefined {
  const spec = withOnKey(given);
  if (!isObj(spec) || !isObj(spec.on) || !isObj(spec.on.webhook)) return undefined;
  const p = spec.on.webhook.path;
  return typeof p === 'string' && p ? p : undefined;
}

/** The unique index 0071 puts on live playbooks' webhook paths. */
export const WEBHOOK_PATH_INDEX = 'playbooks_webhook_path_key';

/** The text a taken webhook path is reported with, on a save (409) and on a CR's status. */
export function webhookPathTakenText(path: string | undefined): string {
  return `spec.on.webhook.path: the webhook path ${String(path ?? '').slice(0, 200)} is already used by another playbook`;
}

/** A unique violation on the webhook path as a 409 naming it (else undefined: the caller's own handling). */
export function webhookConflict(err: unknown, row: Row): ConflictError | undefined {
  const e = err as { code?: string; constraint?: string };
  if (e?.code !== '23505' || e.constraint !== WEBHOOK_PATH_INDEX) return undefined;
  return new ConflictError(webhookPathTakenText(webhookPathOf(row.spec)), { 'spec.on.webhook.path': 'already used by another playbook' });
}

/** The spec as a JSON Schema (draft-07, as monaco-yaml reads it), from the same zod. */
export function playbookJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(PlaybookFields, { io: 'input', unrepresentable: 'any', target: 'draft-7' });
  return { ...schema, $id: 'playbook-spec.schema.json', title: 'Playbook spec' };
}

// ---- the /api/db door's columns (the settings writer's playbooks entry) ----

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * A body's own rules: title required (the reference UI sends name = title), an `id` in a PATCH body (the reference UI
 * sends it) must be the row's and is dropped (a POST may name its id), and the columns the spec also carries are filled from it when left out.
 */
export function preparePlaybookRow(row: Row, current?: Row): Row {
  const out: Row = { ...row };
  if (current && 'id' in out) {
    if (out.id !== current.id) throw new BadRequestError('id cannot be changed', { id: 'must be the row\'s id' });
    delete out.id;
  }
  if ((!current || 'title' in out) && (typeof out.title !== 'string' || !out.title.trim())) {
    throw new BadRequestError('title is required', { title: 'a title is required' });
  }
  if (!current && !('spec' in out)) throw new BadRequestError('spec is required', { spec: 'a spec is required' });
  if ('spec' in out && isObj(out.spec)) {
    const spec = out.spec;
    if (!current || !('category' in out) || out.category === undefined || out.category === null) {
      out.category = str(out.category) ?? str(spec.category) ?? (current ? str(current.category) : undefined) ?? '';
    }
    if (!current && out.description === undefined && str(spec.description)) out.description = spec.description;
    if (!current && out.icon === undefined && str(spec.icon)) out.icon = spec.icon;
  }
  if (out.category === null) out.category = '';
  return out;
}

/** A CR-sourced row's columns written into its CR's spec (title, description, icon, category live there). */
export function playbookCrSpec(current: Row, patch: Row): Row {
  const spec: Row = { ...(isObj(patch.spec) ? patch.spec : isObj(current.spec) ? current.spec : {}) };
  for (const k of ['title', 'description', 'icon', 'category'] as const) {
    if (typeof patch[k] === 'string') spec[k] = patch[k];
  }
  return spec;
}
