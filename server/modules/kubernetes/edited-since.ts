import { isDeepStrictEqual } from 'node:util';
import { keyOf, type KubeObject } from './objects.js';

/**
 * What a console edit of a CR sets or overwrites: the spec (metadata.generation, which the API server bumps on every
 * spec change and never on a status write) and the labels and annotations.
 */
function editedContent(obj: KubeObject) {
  const m = obj.metadata;
  return { uid: m.uid, generation: m.generation, labels: m.labels ?? {}, annotations: m.annotations ?? {} };
}

/**
 * True when a user who saw `a` saw what `b` holds of the spec, labels and annotations (their status may differ). A CR
 * without a generation cannot tell a spec change from a status write: it is never the same, so every change counts.
 */
export function sameEditedContent(a: KubeObject, b: KubeObject): boolean {
  if (typeof a.metadata.generation !== 'number' || typeof b.metadata.generation !== 'number') return false;
  return isDeepStrictEqual(editedContent(a), editedContent(b));
}

/**
 * For one informer's objects: the resourceVersion since which each holds its current spec, labels and annotations.
 * Status writes (the console's own, every few seconds for a canary) move resourceVersion without changing them, so an
 * edit loaded at any version from this one on has seen everything it could overwrite. Kept in memory from the watch
 * events: an object first seen (at start or by a relist) starts at its version then, which errs towards a conflict.
 */
export class EditedSince {
  private readonly byKey = new Map<string, { obj: KubeObject; since: string }>();

  /** An informer event (call after the cache took it). */
  seen(phase: 'add' | 'update' | 'delete', obj: KubeObject): void {
    const key = keyOf(obj.metadata.namespace, obj.metadata.name);
    if (phase === 'delete') {
      this.byKey.delete(key);
      return;
    }
    const rv = obj.metadata.resourceVersion;
    if (!rv) return void this.byKey.delete(key);
    const prev = this.byKey.get(key);
    this.byKey.set(key, { obj, since: prev && sameEditedContent(prev.obj, obj) ? prev.since : rv });
  }

  /** The resourceVersion since which the object at `resourceVersion` has held its content (undefined when that is
   *  not the version this informer last saw). */
  since(namespace: string, name: string, resourceVersion: string): string | undefined {
    const e = this.byKey.get(keyOf(namespace, name));
    return e && e.obj.metadata.resourceVersion === resourceVersion ? e.since : undefined;
  }
}
