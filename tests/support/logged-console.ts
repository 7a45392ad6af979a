import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp, LOG_REDACT, LOG_SERIALIZERS } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { until } from './poll.js';

export interface LoggedConsole {
  app: Awaited<ReturnType<typeof buildApp>>;
  /** A pool on the console's own database. */
  db: pg.Pool;
  /** Every log line the app wrote (at debug level, with the production redaction and serializers). */
  logs: string[];
  /** The id of a live check of a canary, once it exists (a CR canary reconciles in its own time). */
  checkId(namespace: string, canaryName: string, checkName: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * A console on a fresh database cloned from the run's template (as createTestApp), but with a logger whose lines are
 * kept, so a test can look for secrets in them. `env` is added to the configuration.
 */
export async function startLoggedConsole(env: Record<string, string>): Promise<LoggedConsole> {
  const adminUrl = new URL(inject('adminUrl'));
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE console_test_template`);
  await admin.end();
  const url = new URL(adminUrl.toString());
  url.pathname = `/${name}`;
  const config = loadConfig({ DATABASE_URL: url.toString(), DEMO_DATA: 'false', LOG_LEVEL: 'debug', ...env });
  const logs: string[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { logs.push(String(chunk)); done(); } });
  const app = await buildApp(config, {
    logger: { level: 'debug', redact: { paths: LOG_REDACT, censor: '[redacted]' }, serializers: LOG_SERIALIZERS, stream },
  });
  await app.ready();
  const db = new pg.Pool({ connectionString: url.toString(), max: 4 });
  db.on('error', () => {});
  return {
    app, db, logs,
    checkId: (namespace, canaryName, checkName) => until(async () => {
      const { rows } = await db.query<{ id: string }>(
        `SELECT ch.id FROM checks ch JOIN canaries ca ON ca.id = ch.canary_id
         WHERE ca.name = $1 AND ca.namespace = $2 AND ch.name = $3 AND ch.deleted_at IS NULL AND ca.deleted_at IS NULL`,
        [canaryName, namespace, checkName],
      );
      return rows[0]?.id;
    }, `check ${namespace}/${canaryName}/${checkName}`),
    async close() {
      await app.close();
      await db.end();
      const a = new pg.Client({ connectionString: adminUrl.toString() });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
