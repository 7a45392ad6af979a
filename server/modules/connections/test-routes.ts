import fp from 'fastify-plugin';
import { requireFeature } from '../auth/features.js';
import { createConnectionTestService, type ConnectionTestService, type TestLimits } from './test-service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The connection test (its limits are read, and in tests shortened, here). */
    connectionTests: ConnectionTestService;
  }
}

export interface ConnectionTestRoutesOptions {
  limits?: Partial<TestLimits>;
}

const ACCESS = { resource: 'connections', action: 'write' } as const;

/**
 * POST /api/connection/test/{id} (a saved connection) and POST /api/connection/test (an unsaved form: Test before
 * save). Connections write, as the reference's `connection:update`. Not encapsulated, so `app.connectionTests` is
 * reachable from the root (tests shorten the 10 s timeout through it); the paths are therefore written in full.
 */
export const connectionTestRoutes = fp<ConnectionTestRoutesOptions>(
  async (app, opts) => {
    const service = createConnectionTestService({ db: app.db, valueFrom: app.kube?.valueFrom, limits: opts.limits });
    app.decorate('connectionTests', service);
    app.addHook('onClose', async () => service.close());

    // a test is the Connections settings page's action: refused while settings.connections is off
    const settingsOn = async () => requireFeature(app.db, 'settings.connections');
    app.post<{ Params: { id: string } }>('/api/connection/test/:id', { config: { access: ACCESS }, preHandler: settingsOn }, async (req) => {
      const outcome = await service.testSaved(req.params.id);
      req.log.info({ connection: req.params.id }, 'connection test passed');
      return outcome;
    });
    app.post('/api/connection/test', { config: { access: ACCESS }, preHandler: settingsOn }, async (req) => service.testUnsaved(req.body));
  },
  { name: 'connection-test' },
);
