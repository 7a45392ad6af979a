import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.js';
import { NotFoundError } from '../../lib/errors.js';
import { parseId } from '../../lib/validation.js';
import { requeue } from './queries.js';
import { ResponderWorker } from './responder-worker.js';

export interface IncidentsRoutesOptions {
  config: Config;
  /** Sweep interval of the responder worker (tests shorten it). */
  sweepMs?: number;
}

/**
 * Incidents beyond /api/db: the responder delivery worker, and POST /api/incidents/responders/:id/resend to try a
 * failed delivery again. Incidents themselves are read and written through /api/db (0030_incidents.sql).
 */
export const incidentsRoutes: FastifyPluginAsync<IncidentsRoutesOptions> = async (app, opts) => {
  const worker = new ResponderWorker({
    db: app.db, publicUrl: opts.config.publicUrl, log: app.log, sweepMs: opts.sweepMs,
  });
  // A new responder (POST /api/db/responders on any replica) wakes the worker at once; the sweep catches the rest.
  const unsubscribe = app.events.bus.subscribe((event) => {
    if ((event.type === 'change' && event.relation === 'responders') || event.type === 'resync') worker.kick();
  });
  app.addHook('onReady', async () => worker.start());
  app.addHook('onClose', async () => {
    unsubscribe();
    await worker.stop();
  });

  app.post<{ Params: { id: string } }>(
    '/responders/:id/resend',
    { config: { access: { resource: 'responder', action: 'write' } } },
    async (req, reply) => {
      const id = parseId(req.params.id, 'responder id');
      if (!(await requeue(app.db, id))) throw new NotFoundError('team responder', id);
      worker.kick();
      return reply.status(202).send({ id, delivery_status: 'pending' });
    },
  );
};
