import type { z } from 'zod';

/** What a check implementation gets besides its own spec. */
export interface CheckContext {
  /** Aborted when the per-check timeout fires or the server shuts down; implementations must honour it. */
  signal: AbortSignal;
  /** The timeout in milliseconds the runner enforces (also reflected in `signal`). */
  timeoutMs: number;
}

/**
 * The outcome of one run of one check. `data` is what CEL `test.expr` / `display.expr` see (the reference exposes
 * type-specific fields, e.g. `code`, `headers`, `content`, `json` for http; `stdout`, `stderr`, `exitCode` for exec).
 */
export interface CheckResult {
  pass: boolean;
  /** The spec itself is wrong (bad URL, bad query...): stored with invalid=true, not a target failure. */
  invalid?: boolean;
  /** Milliseconds the check took. */
  duration: number;
  message?: string;
  error?: string;
  /** Stored in check_statuses.details (keep it small: truncated bodies, counts). */
  detail?: unknown;
  data: Record<string, unknown>;
}

/**
 * One check type (`http`, `tcp`, ...). The Canary spec key equals `type`; `schema` validates one entry of that
 * array (common fields such as name, description, labels, icon, test, display, thresholdMillis are validated by
 * the runner and also passed through). `run` must never throw for target failures: it returns pass=false with an
 * error; a thrown error is recorded as a failed run by the runner.
 */
export interface CheckType<S = unknown> {
  type: string;
  schema: z.ZodType<S>;
  run(spec: S, ctx: CheckContext): Promise<CheckResult>;
}
