import type { CheckContext, CheckResult } from '../types.js';

/** A spec that cannot be run as written (bad URL, bad regex, unsupported scheme...): reported as invalid. */
export class InvalidSpecError extends Error {
  override name = 'InvalidSpecError';
}

/** Milliseconds since `start` (a `performance.now()` reading), rounded. */
export function elapsed(start: number): number {
  return Math.max(0, Math.round(performance.now() - start));
}

/** The message of anything thrown, without stack; `AggregateError`s (e.g. connect to ::1 and 127.0.0.1) joined. */
export function errorText(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length) {
    return [...new Set(err.errors.map((e) => errorText(e)))].join('; ');
  }
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const msg = err.message || String(code ?? err.name);
    // node's fetch hides the socket error in `cause` ("fetch failed")
    const cause = (err as { cause?: unknown }).cause;
    if (msg === 'fetch failed' && cause) return `fetch failed: ${errorText(cause)}`;
    return msg;
  }
  return String(err);
}

export function invalidResult(start: number, message: string, data: Record<string, unknown> = {}): CheckResult {
  return { pass: false, invalid: true, duration: elapsed(start), error: message, data };
}

export function failResult(
  start: number,
  error: string,
  extra: { message?: string; data?: Record<string, unknown>; detail?: unknown } = {},
): CheckResult {
  return { pass: false, duration: elapsed(start), error, message: extra.message, detail: extra.detail, data: extra.data ?? {} };
}

export function passResult(
  start: number,
  extra: { message?: string; data?: Record<string, unknown>; detail?: unknown } = {},
): CheckResult {
  return { pass: true, duration: elapsed(start), message: extra.message, detail: extra.detail, data: extra.data ?? {} };
}

/**
 * What a check reports when its signal fired: the runner aborts with its own reason ("timed out after N ms",
 * "runner stopped"), which is kept; a bare AbortSignal.timeout()/abort() becomes "timed out after N ms".
 */
export function abortedText(ctx: CheckContext): string {
  const reason: unknown = ctx.signal.reason;
  if (reason instanceof Error && reason.name !== 'AbortError' && reason.name !== 'TimeoutError' && reason.message) {
    return reason.message;
  }
  return `timed out after ${ctx.timeoutMs} ms`;
}

/**
 * Turns anything thrown while talking to the target into a result: a spec error becomes invalid, an abort becomes
 * "timed out", everything else a failure. `redact` removes secrets a driver may echo back.
 */
export function resultFromError(start: number, ctx: CheckContext, err: unknown, redact: (s: string) => string = (s) => s): CheckResult {
  if (err instanceof InvalidSpecError) return invalidResult(start, redact(err.message));
  if (ctx.signal.aborted) return failResult(start, abortedText(ctx));
  return failResult(start, redact(errorText(err)));
}

/** `1 row`, `3 rows`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
