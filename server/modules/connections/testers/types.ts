/**
 * What a connection tester is: a function of a hydrated connection (references and `$(username)`/`$(password)`
 * already filled in by server/lib/connection-hydrate.ts) that resolves the payload shown under 'Test Connection
 * Results', or throws ConnectionTestError with a message the user can act on.
 */

import type { HydratedConnection } from '../../../lib/connection-hydrate.js';

export type { HydratedConnection };

export interface TesterContext {
  /** Aborted when the test's time is up (or the server closes): a tester drops its sockets and children then. */
  signal: AbortSignal;
  /**
   * For drivers that take a connect timeout: the test's time plus a second, so the drivers' timers are a backstop
   * and a hanging target always gets the service's one "timed out after …" answer, whichever driver it is.
   */
  timeoutMs: number;
}

/** Resolves the payload of a passed test; throws ConnectionTestError saying what failed. */
export type Tester = (c: HydratedConnection, ctx: TesterContext) => Promise<Record<string, unknown>>;

/** A failed test: `message` is shown to the user as is (after masking the connection's secrets). */
export class ConnectionTestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectionTestError';
  }
}
