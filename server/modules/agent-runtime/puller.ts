import { SerialTicker } from './ticker.js';
import type pg from 'pg';
import { notifyChange } from '../../lib/events.js';
import { inTransaction } from '../../lib/tx.js';
import { reconcileChecks } from '../health/queries.js';
import { validateCanarySpec } from '../health/spec.js';
import { isOwnCanary, softDeletePulledCanary, upsertPulledCanary, type PulledCanary } from './queries.js';
import type { RuntimeLog, RuntimeState } from './status.js';
import { briefBody, type UpstreamClient } from './upstream-client.js';

export interface PullerOptions {
  db: pg.Pool;
  client: UpstreamClient;
  state: RuntimeState;
  log: RuntimeLog;
  /** AGENT_PULL_INTERVAL_MS */
  intervalMs: number;
}

interface PullAnswer {
  before?: string;
  canaries?: PulledCanary[];
}

/**
 * Canary pull: GET /api/upstream/canary/pull?since=<the last answer's `before`> at start and every `intervalMs`. Each
 * canary the upstream made for this agent is stored under its upstream id as a local canary (source `Upstream`),
 * with its checks reconciled as a console save does, so the local scheduler runs it (it notices through the canaries
 * signature). A deleted one is soft-deleted with its checks. Pulled canaries are the upstream's: the canary row is
 * never pushed back; its checks, their latest state and statuses are (they are this agent's). A canary whose spec
 * does not validate here is logged and kept as it was. The first pull after a start has no `since` (all of them).
 */
export class Puller extends SerialTicker {
  private since: string | undefined;

  constructor(private readonly o: PullerOptions) {
    super(o.intervalMs);
  }

  protected run(): Promise<void> {
    return this.pull();
  }

  async pull(): Promise<void> {
    if (this.stopped) return;
    const { state } = this.o;
    try {
      const answer = await this.o.client.request('GET', '/canary/pull', { query: { since: this.since } });
      if (answer.status === 401) return state.tokenRejected('pull');
      if (!answer.ok) return state.failed('pull', `${answer.status} ${briefBody(answer.text)}`);
      state.accepted();
      const body = JSON.parse(answer.text) as PullAnswer;
      let applied = 0;
      for (const canary of body.canaries ?? []) if (await this.apply(canary)) applied++;
      if (applied) this.o.log.info({ applied }, 'agent: canaries pulled from the upstream');
      if (body.before) this.since = body.before;
      state.status.lastPullAt = new Date().toISOString();
    } catch (err) {
      state.failed('pull', (err as Error).message);
    }
  }

  private async apply(p: PulledCanary): Promise<boolean> {
    try {
      if (!p || typeof p.id !== 'string' || typeof p.name !== 'string') throw new Error('not a canary (id, name)');
      if (p.deleted_at) {
        return await inTransaction(this.o.db, async (c) => {
          const gone = await softDeletePulledCanary(c, p.id);
          if (gone) await notifyChange(c, { relation: 'canaries', ids: [p.id] });
          return gone;
        });
      }
      // the upstream also lists the canaries this agent pushed (its own CRs): they are this agent's, not pulled ones
      if (await isOwnCanary(this.o.db, p.id)) return false;
      const valid = validateCanarySpec(p.spec);
      await inTransaction(this.o.db, async (c) => {
        await upsertPulledCanary(c, p);
        const checks = await reconcileChecks(c, p.id, p.namespace || 'default', valid.checks);
        await notifyChange(c, { relation: 'canaries', ids: [p.id] });
        await notifyChange(c, { relation: 'checks', ids: checks.map((x) => x.id) });
      });
      return true;
    } catch (err) {
      this.o.log.warn({ err, canary: p?.id, name: p?.name }, 'agent: a pulled canary could not be applied; kept as it was');
      return false;
    }
  }
}
