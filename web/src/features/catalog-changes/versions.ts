/**
 * An item's versions, rebuilt from its current config and the RFC 7386 merge patches its `diff` changes store.
 * Each patch goes from the new config to the previous one (the reference's direction), so walking the changes
 * newest first and applying each patch to the version after it yields the version before it.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 7386: an object patch merges key by key (null removes a key); anything else replaces the target. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}

/** A stored patch: an object, or its JSON text (some writers keep the text). Unreadable: no change. */
function readPatch(patches: unknown): unknown {
  if (typeof patches === 'string') {
    try {
      return JSON.parse(patches) as Json;
    } catch {
      return {};
    }
  }
  return patches ?? {};
}

export interface VersionSource {
  id: string;
  created_at: string;
  summary?: string | null;
  patches?: unknown;
}

export interface ConfigVersion {
  /** The change that produced this version; `before:<id>` for the one before the oldest known change. */
  id: string;
  /** When this version came to be (the change's time); null for the oldest known one. */
  at: string | null;
  label: string;
  config: unknown;
}

export const CURRENT = 'current';

/**
 * Newest first: the current config (made by the newest change), then the config each older change made, down to the
 * version before the oldest change (`before:<id>`). `changes` must be newest first.
 */
export function rebuildVersions(current: unknown, changes: VersionSource[]): ConfigVersion[] {
  const versions: ConfigVersion[] = [];
  let config = current;
  changes.forEach((c, i) => {
    versions.push({ id: c.id, at: c.created_at, label: i === 0 ? 'Current' : c.created_at, config });
    config = applyMergePatch(config, readPatch(c.patches));
  });
  if (!changes.length) versions.push({ id: CURRENT, at: null, label: 'Current', config });
  else {
    const oldest = changes[changes.length - 1];
    versions.push({ id: `before:${oldest.id}`, at: null, label: `Before ${oldest.created_at}`, config });
  }
  return versions;
}

/**
 * A version by the id `?compare=` names: a change id (the version it made), `before:<id>` (the version that
 * change replaced), or `current` (the newest).
 */
export function findVersion(versions: ConfigVersion[], id: string): ConfigVersion | null {
  if (id === CURRENT) return versions[0] ?? null;
  const exact = versions.find((v) => v.id === id);
  if (exact) return exact;
  if (!id.startsWith('before:')) return null;
  const i = versions.findIndex((v) => v.id === id.slice('before:'.length));
  return i >= 0 ? versions[i + 1] ?? null : null;
}

/** The `?compare=` value that shows what a change did: the version it replaced against the version it made. */
export function compareForChange(changeId: string): string {
  return `before:${changeId}..${changeId}`;
}

/** `?compare=<a>..<b>` → [a, b]; null when the value is not two non-empty ids. */
export function parseCompare(value: string | null): [string, string] | null {
  if (!value) return null;
  const at = value.indexOf('..');
  if (at <= 0) return null;
  const a = value.slice(0, at);
  const b = value.slice(at + 2);
  return a && b ? [a, b] : null;
}

/** A version's text for the side-by-side diff: stable key order, so a diff shows changes, not reordering. */
export function versionText(config: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sort) : isObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort(v[k])])) : v;
  return JSON.stringify(sort(config), null, 2) ?? '';
}
