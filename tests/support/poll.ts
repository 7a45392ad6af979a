/**
 * Polls until `fn` returns a truthy value, every 100 ms; an error thrown by `fn` counts as "not yet" and is quoted if
 * time runs out. No timing is asserted: `ms` only bounds the wait so a stuck test fails with a reason.
 */
export async function until<T>(fn: () => Promise<T | undefined | null | false>, what: string, ms = 30_000): Promise<NonNullable<Exclude<T, false>>> {
  const end = Date.now() + ms;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<Exclude<T, false>>;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
