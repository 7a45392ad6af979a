/**
 * A console replica in its own process for the notifications replica tests: the whole app (event queue consumer and
 * send pipeline) on the database given as the first argument. Prints "ready" once consuming.
 */
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';

const config = loadConfig({ DATABASE_URL: process.argv[2], DEMO_DATA: 'false', LOG_LEVEL: 'silent', PLAYBOOK_ENGINE: 'off', NOTIFICATION_DELIVERY_LEASE_SECONDS: '2' });
const app = await buildApp(config, { logger: false });
await app.ready();
process.stdout.write('ready\n');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
