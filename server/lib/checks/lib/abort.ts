/**
 * Runs `work` until it settles or `signal` aborts, whichever comes first. On abort `cleanup` runs (destroy the
 * socket, kill the child...) and the returned promise rejects at once, so a driver without AbortSignal support
 * cannot keep a check hanging. The late outcome of `work` is swallowed.
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal, cleanup: () => void): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    safe(cleanup);
    return Promise.reject(abortError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      safe(cleanup);
      reject(abortError(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('aborted', 'AbortError');
}

function safe(fn: () => void) {
  try {
    fn();
  } catch {
    // cleanup of a connection that is already gone
  }
}

/**
 * A check's signal, also ended after `thresholdMillis` when that is shorter than the check's timeout: the reference
 * gives the http client and the tcp dialer thresholdMillis as their timeout. `expired()` tells that it, not the
 * check's timeout or a shutdown, ended the work; `error` is what the result then says.
 */
export function thresholdSignal(ctx: { signal: AbortSignal; timeoutMs: number }, thresholdMillis: number | undefined) {
  const limit = thresholdMillis && thresholdMillis < ctx.timeoutMs ? AbortSignal.timeout(thresholdMillis) : null;
  return {
    signal: limit ? AbortSignal.any([ctx.signal, limit]) : ctx.signal,
    expired: () => !!limit?.aborted && !ctx.signal.aborted,
    error: `timed out after ${thresholdMillis} ms (thresholdMillis)`,
  };
}
