import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.js';
import { secretsKey } from '../../lib/secret-box.js';
import { PlaybookExecutor } from './executor.js';

/**
 * Starts the playbook run engine on every console replica once the app is ready, and stops it on close (no more
 * claims, 10 s grace, then running actions are interrupted and their runs released to another replica).
 */
export const playbookEnginePlugin: FastifyPluginAsync<{ config: Config }> = async (app, { config }) => {
  if (config.MODE !== 'console' || config.PLAYBOOK_ENGINE === 'off' || !config.DATABASE_URL) return;
  const executor = new PlaybookExecutor({
    db: app.db,
    connectionString: config.DATABASE_URL,
    log: app.log,
    replica: config.POD_NAME,
    concurrency: config.PLAYBOOK_CONCURRENCY,
    leaseMs: config.PLAYBOOK_LEASE_SECONDS * 1000,
    actionOptions: {
      dataDir: config.DATA_DIR,
      execEnabled: config.PLAYBOOK_EXEC !== 'off',
      kube: app.hasDecorator('kube') ? app.kube.cluster?.kc : undefined,
    },
    valueFrom: app.hasDecorator('kube') ? app.kube.valueFrom : undefined,
    secretsKey: () => secretsKey(config),
  });
  app.addHook('onReady', async () => {
    await executor.start();
  });
  app.addHook('onClose', async () => {
    await executor.stop();
  });
};
