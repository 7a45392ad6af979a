import type pg from 'pg';
import { celToText, evalCel } from '../../lib/cel.js';
import { dodToEvaluate, recordDod } from './queries.js';
import { Sweeper } from './sweeper.js';

export interface DodEvaluatorOptions {
  db: pg.Pool;
  log: { warn(obj: object, msg: string): void };
  /** Evaluate this often even without an evidence change (a check's status changes without one). */
  everyMs?: number;
}

const BATCH = 500;

/**
 * The "Automatic" definition of done: each evidence in an open incident's definition of done with a script is
 * evaluated as a CEL expression over `evidence`, `check` (the check's summary row, for check evidence) and
 * `incident`; true marks it done. The result (or the error) is kept in script_result for the web to show.
 * Example: `check.status == 'healthy'`.
 */
export class DodEvaluator {
  private readonly sweeper: Sweeper;

  constructor(private readonly opts: DodEvaluatorOptions) {
    this.sweeper = new Sweeper(() => this.pass(), opts.everyMs ?? 60_000,
      (err) => opts.log.warn({ err }, 'incidents: definition-of-done evaluation failed'));
  }

  start(): void {
    this.sweeper.start();
  }

  stop(): Promise<void> {
    return this.sweeper.stop();
  }

  kick(): void {
    this.sweeper.kick();
  }

  private async pass(): Promise<void> {
    for (const e of await dodToEvaluate(this.opts.db, BATCH)) {
      let done = false;
      let result: string;
      try {
        const value = evalCel(e.script, {
          evidence: { id: e.id, type: e.type, description: e.description, evidence: e.evidence, properties: e.properties },
          check: e.check,
          incident: e.incident,
        });
        done = value === true;
        result = celToText(value);
      } catch (err) {
        result = `error: ${err instanceof Error ? err.message : String(err)}`.slice(0, 1000);
      }
      await recordDod(this.opts.db, e.id, done, result);
    }
  }
}
