import type pg from 'pg';

/**
 * What every playbook action type implements (issue 14). The engine (executor.ts) claims an action, renders its
 * templates, then calls `run` with the action's own block (`exec`, `http`…) already rendered. A member of the
 * registry in ./index.ts, one file and one test each.
 */
export interface ActionContext {
  /** The run and action rows' ids. */
  runId: string;
  actionId: string;
  /** The action's name from the spec. */
  name: string;
  /** Aborted on cancel, on the action's or the run's timeout, and when this replica stops: stop work, kill children. */
  signal: AbortSignal;
  /** Epoch ms after which the action has timed out (min of its own timeout and the run's). */
  deadline: number;
  /** Prints a line (or a chunk) of output: stored, streamed to the run's watchers, masked by the engine. */
  log(stream: 'stdout' | 'stderr', text: string): void;
  /**
   * Registers a secret the action came to know (a resolved valueFrom, a connection password), so that it is masked
   * as `***` everywhere the engine writes output: streamed lines, result, error.
   */
  addSecret(value: string): void;
  /** The text with every secret known so far masked as `***`, as results are (for what an action stores itself: artifacts). */
  mask(text: string): string;
  /** The console's pool, for connection look-ups (connection://ns/name or a connection's id). */
  db: pg.Pool;
  /** The run's `env` (spec.env resolved) for actions that take an environment. */
  env: Record<string, string>;
  /** The console's configuration values actions may need (DATA_DIR, PLAYBOOK_EXEC, cluster access). */
  options: ActionOptions;
}

export interface ActionOptions {
  dataDir: string;
  /** `off` refuses exec actions. */
  execEnabled: boolean;
  /** The cluster the console talks to (pod and logs.kubernetes actions); undefined when none is configured. */
  kube?: import('@kubernetes/client-node').KubeConfig;
}

/** An action type: the key it has in the spec (`exec`), and what it does with its rendered block. */
export interface PlaybookActionType {
  /** The key in the action spec: exec, http, sql, notification, pod, logs. */
  type: string;
  /** Runs it; the resolved value is the action's `result` (jsonb). Throwing fails the action with the message. */
  run(block: Record<string, unknown>, ctx: ActionContext): Promise<Record<string, unknown>>;
}

/** Thrown by an action whose failure has a result worth keeping (exec with a non-zero exit: stdout, stderr, exitCode). */
export class ActionFailedError extends Error {
  constructor(message: string, readonly result: Record<string, unknown>) {
    super(message);
  }
}
