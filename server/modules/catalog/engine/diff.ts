import { createTwoFilesPatch } from 'diff';
import { mergePatchBetween } from '../../../lib/merge-patch.js';

/** A config as compared and stored: object keys sorted at every depth, undefined members dropped. */
export function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : normalise(v)));
  if (value && typeof value === 'object') {
    if (value instanceof Date) return value.toISOString();
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = normalise(v);
    }
    return out;
  }
  return value === undefined ? null : value;
}

/** The comparison key of a normalised value: two configs are the same when their keys are. */
export const canonical = (normalised: unknown): string => JSON.stringify(normalised ?? null);

/** A `diff` change's content: the unified diff, the RFC 7386 patch from the new config back to the previous one. */
export interface ConfigDiff {
  diff: string;
  patches: unknown;
  /** The changed paths (`spec.replicas, metadata.labels.app`), at most MAX_SUMMARY_PATHS of them. */
  summary: string;
}

const MAX_SUMMARY_PATHS = 10;
/** Above this many edits the unified diff is given up (a rewrite of a huge config): the patch still says what changed. */
const MAX_EDIT_LENGTH = 5_000;

/** Compares two normalised configs; null when they are the same. */
export function diffConfigs(previous: unknown, next: unknown): ConfigDiff | null {
  if (canonical(previous) === canonical(next)) return null;
  const before = JSON.stringify(previous ?? null, null, 2);
  const after = JSON.stringify(next ?? null, null, 2);
  const unified = createTwoFilesPatch('previous', 'current', `${before}\n`, `${after}\n`, undefined, undefined,
    { context: 3, maxEditLength: MAX_EDIT_LENGTH });
  // the reference stores the patch that turns the new config into the previous one
  const patches = mergePatchBetween(next, previous);
  const paths = changedPaths(patches).sort();
  const shown = paths.slice(0, MAX_SUMMARY_PATHS).join(', ');
  return {
    diff: unified ?? `the configuration was rewritten (${paths.length} paths changed); the diff is too large to show`,
    patches,
    summary: paths.length > MAX_SUMMARY_PATHS ? `${shown} and ${paths.length - MAX_SUMMARY_PATHS} more` : shown,
  };
}

/** The dotted paths a merge patch sets (a replaced array or scalar is one path; a nested object is its leaves). */
export function changedPaths(patch: unknown, prefix = ''): string[] {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return prefix ? [prefix] : [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(patch)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length) out.push(...changedPaths(v, path));
    else out.push(path);
  }
  return out;
}
