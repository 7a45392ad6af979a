import type { FastifyPluginAsync } from 'fastify';
import { featureStates } from '../../contracts/rbac.js';
import { HistoryQuery, SnapshotQuery, type HistoryResponse, type ImpactResponse } from '../../contracts/topology-extra.js';
import { NotFoundError } from '../../lib/errors.js';
import { parseBody, parseId } from '../../lib/validation.js';
import { propertyMap } from '../auth/queries.js';
import { componentHistory, scheduleHistoryRetention } from './history.js';
import { componentImpact } from './impact.js';
import { logsModuleFetch, type ComponentLogFetch } from './snapshot-logs.js';
import { topologySnapshot } from './snapshot.js';

const READ = { access: { resource: 'topologies', action: 'read' } } as const;

/**
 * The topology's reads beside the tree: GET /api/snapshot/topology/{id} (a zip), GET /api/topology/{id}/history and
 * GET /api/topology/{id}/impact; read on topologies, 404 while `topology.disable` (as GET /api/topology). Also the
 * 30-day retention of the health history, on the leader.
 */
export const topologyExtraRoutes: FastifyPluginAsync = async (app) => {
  // the logs module's search (its backends, routes and credentials), made on the first snapshot that reads logs
  let fetcher: ComponentLogFetch | null = null;
  const logFetch = () => fetcher ??= logsModuleFetch({
    db: app.db,
    valueFrom: app.hasDecorator('kube') ? app.kube.valueFrom ?? null : null,
    kube: () => (app.hasDecorator('kube') ? app.kube.cluster?.kc ?? null : null),
  });
  const features = async () => {
    const on = featureStates(await propertyMap(app.db));
    if (!on.topology) throw new NotFoundError('topology');
    return on;
  };

  app.get<{ Params: { id: string } }>('/api/snapshot/topology/:id', { config: READ }, async (req, reply) => {
    const on = await features();
    const id = parseId(req.params.id);
    const q = parseBody(SnapshotQuery, req.query);
    const logs = on.logs && req.can('logging_backends', 'read') ? { format: q.logFormat ?? 'log', fetch: logFetch() } as const : null;
    const snap = await topologySnapshot(app.db, id, q, {
      checks: req.can('canaries', 'read'),
      incidents: on.incidents && req.can('incident', 'read'),
      configs: on.config && req.can('database', 'read'),
    }, undefined, undefined, logs);
    return reply.type('application/zip').header('content-disposition', `attachment; filename="${snap.filename}"`)
      .header('cache-control', 'no-store').send(Buffer.from(snap.zip.buffer, snap.zip.byteOffset, snap.zip.byteLength));
  });

  app.get<{ Params: { id: string } }>('/api/topology/:id/history', { config: READ }, async (req): Promise<HistoryResponse> => {
    await features();
    return componentHistory(app.db, parseId(req.params.id), parseBody(HistoryQuery, req.query).since);
  });

  app.get<{ Params: { id: string } }>('/api/topology/:id/impact', { config: READ }, async (req): Promise<ImpactResponse> => {
    await features();
    return componentImpact(app.db, parseId(req.params.id));
  });

  let stop = () => {};
  app.addHook('onReady', async () => {
    const leadership = app.hasDecorator('leadership') ? app.leadership : null;
    stop = scheduleHistoryRetention(app.db, leadership, (err) => app.log.warn({ err }, 'topology: history retention failed'));
  });
  app.addHook('onClose', async () => stop());
};
