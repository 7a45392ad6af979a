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

/**
 * Sends an edit carrying the resourceVersion `send` reads now, again (up to 5 times, 200 ms apart) while the answer is
 * 409: the console's leader may write a CR's status between the read and the patch, and a 409 is then the rightful
 * answer, after which a user reloads and applies again. Any other answer is returned as is.
 */
export async function retryOnConflict<R extends { statusCode: number }>(send: () => Promise<R>): Promise<R> {
  let res = await send();
  for (let i = 0; i < 5 && res.statusCode === 409; i++) {
    await new Promise((r) => setTimeout(r, 200));
    res = await send();
  }
  return res;
}
