import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * One event's handling as a scope (issue 15 "Performance"): every handler of a row runs inside it, so a look-up
 * several handlers make for the same row (the check and its canary, read by the notification rules and by the
 * playbook triggers) is one query. Outside a scope `eventScoped` just loads.
 */
const scope = new AsyncLocalStorage<Map<string, Promise<unknown>>>();

export function runInEventScope<T>(fn: () => Promise<T>): Promise<T> {
  return scope.run(new Map(), fn);
}

/**
 * `load()` once per event scope and key; later callers get a copy of the first result (structuredClone: a handler
 * changing what it got changes nobody else's). A failed load is not kept.
 */
export async function eventScoped<T>(key: string, load: () => Promise<T>): Promise<T> {
  const memo = scope.getStore();
  if (!memo) return load();
  const hit = memo.get(key) as Promise<T> | undefined;
  if (hit) return structuredClone(await hit);
  const p = load();
  // kept as it was loaded, before the first caller can change it
  const kept = p.then((v) => structuredClone(v));
  memo.set(key, kept);
  kept.catch(() => memo.delete(key));
  return p;
}
