import fp from 'fastify-plugin';
import pg from 'pg';
import { migrate } from '../db/migrate.js';
import { RelationWriters } from '../modules/db/writers.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The one connection pool, for the embedded and for an external PostgreSQL alike. */
    db: pg.Pool;
    /** True once migrations have been applied; /readyz reports it. */
    migrated: boolean;
    /** The modules' own write paths for /api/db relations whose registry entry says `write.writer` (./writers.ts). */
    relationWriters: RelationWriters;
  }
}

export interface DbPluginOptions {
  connectionString: string;
  max: number;
}

/** Opens the pool, applies migrations, and closes the pool when the app closes. */
export const dbPlugin = fp<DbPluginOptions>(
  async (app, opts) => {
    const pool = new pg.Pool({ connectionString: opts.connectionString, max: opts.max, application_name: 'console' });
    // An idle client can lose its server (restart, network); log it instead of crashing the process.
    pool.on('error', (err) => app.log.warn({ err }, 'idle database client error'));
    app.decorate('db', pool);
    app.decorate('migrated', false);
    app.decorate('relationWriters', new RelationWriters());
    app.addHook('onClose', async () => {
      await pool.end();
    });
    const applied = await migrate(pool);
    if (applied.length) app.log.info({ applied }, 'migrations applied');
    app.migrated = true;
  },
  { name: 'db' },
);
