import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.js';
import type { ResendResponderResult } from '../../contracts/incidents.js';
import { NotFoundError } from '../../lib/errors.js';
import { parseId } from '../../lib/validation.js';
import { DodEvaluator } from './dod-evaluator.js';
import { requeue } from './queries.js';
import { ResponderWorker } from './responder-worker.js';

export interface IncidentsRoutesOptions {
  config: Config;
  /** Sweep interval of the responder worker (tests shorten it). */
  sweepMs?: number;
}

/**
 * Incidents beyond /api/db: the responder delivery worker, the definition-of-done script evaluator, and
 * POST /api/incidents/responders/:id/resend to try a failed delivery again. Incidents themselves are read and written
 * through /api/db (0030_incidents.sql).
 */
export const incidentsRoutes: FastifyPluginAsync<IncidentsRoutesOptions> = async (app, opts) => {
  const worker = new ResponderWorker({
    db: app.db, publicUrl: opts.config.publicUrl, log: app.log, sweepMs: opts.sweepMs,
    valueFrom: app.hasDecorator('kube') ? app.kube.valueFrom : undefined,
  });
  const dod = new DodEvaluator({ db: app.db, log: app.log });
  // A new responder or evidence (POST /api/db/... on any replica) wakes its worker at once, and a check's new status
  // re-evaluates the definition of done; the timers catch the rest.
  const unsubscribe = app.events.bus.subscribe((event) => {
    const relation = event.type === 'change' ? event.relation : null;
    if (relation === 'responders' || event.type === 'resync') worker.kick();
    if (relation === 'evidences' || relation === 'checks' || event.type === 'resync') dod.kick();
  });
  app.addHook('onReady', async () => {
    worker.start();
    dod.start();
  });
  app.addHook('onClose', async () => {
    unsubscribe();
    await Promise.all([worker.stop(), dod.stop()]);
  });

  app.post<{ Params: { id: string } }>(
    '/responders/:id/resend',
    { config: { access: { resource: 'responder', action: 'write' } } },
    async (req, reply) => {
      const id = parseId(req.params.id, 'responder id');
      if (!(await requeue(app.db, id))) throw new NotFoundError('team responder', id);
      worker.kick();
      return reply.status(202).send({ id, delivery_status: 'pending' } satisfies ResendResponderResult);
    },
  );
};
