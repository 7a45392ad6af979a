import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { buildApp } from '../../server/app.js';
import { loadConfig, type Config } from '../../server/config.js';
import type { Role } from '../../server/contracts/rbac.js';
import { hashSecret } from '../../server/lib/crypto.js';
import { createSession } from '../../server/modules/auth/sessions.js';
import { insertAccessToken } from '../../server/modules/auth/tokens.js';

const TEMPLATE_DB = 'console_test_template';

export interface TestContext {
  app: FastifyInstance;
  config: Config;
  /** A pool on the test's own database, for arranging rows and checking effects. */
  db: pg.Pool;
  close(): Promise<void>;
}

/** A fresh database cloned from the migrated template, and the app built on it. */
export async function createTestApp(
  env: Record<string, string> = {},
  opts: { logger?: FastifyServerOptions['logger'] } = {},
): Promise<TestContext> {
  const adminUrl = inject('adminUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const config = loadConfig({ DATABASE_URL: url.toString(), DEMO_DATA: 'false', LOG_LEVEL: 'silent', ...env });
  const app = await buildApp(config, { logger: opts.logger ?? false });
  await app.ready();
  const db = new pg.Pool({ connectionString: url.toString(), max: 4 });
  // DROP DATABASE ... WITH (FORCE) in close() may terminate sockets pool.end() has not finished closing (57P01).
  db.on('error', () => {});
  return {
    app, config, db,
    async close() {
      await app.close();
      await db.end();
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export interface TestPerson {
  id: string;
  email: string;
  password: string;
}

/** Inserts a person with an identity, a password and roles (no roles means viewer). */
export async function makePerson(
  db: pg.Pool,
  opts: { roles?: Role[]; email?: string; first?: string; last?: string; password?: string } = {},
): Promise<TestPerson> {
  const email = opts.email ?? `user-${randomBytes(4).toString('hex')}@example.test`;
  const password = opts.password ?? 'correct horse battery';
  const traits = { email, name: { first: opts.first ?? 'Test', last: opts.last ?? 'User' } };
  const { rows } = await db.query<{ id: string }>('INSERT INTO identities (traits) VALUES ($1) RETURNING id', [traits]);
  const id = rows[0].id;
  await db.query('INSERT INTO identity_credentials (identity_id, password_hash) VALUES ($1, $2)', [id, await hashSecret(password)]);
  for (const role of opts.roles ?? []) {
    await db.query('INSERT INTO person_roles (person_id, role) VALUES ($1, $2)', [id, role]);
  }
  return { id, email, password };
}

/** Headers of a signed-in browser session for the person: the cookie and the CSRF token. */
export async function sessionHeaders(db: pg.Pool, personId: string): Promise<Record<string, string>> {
  const s = await createSession(db, personId, 1);
  return { cookie: `session=${s.token}`, 'x-csrf-token': s.csrfToken };
}

/** An Authorization header with a fresh access token owned by the person. */
export async function bearerHeaders(db: pg.Pool, personId: string): Promise<Record<string, string>> {
  const t = await insertAccessToken(db, {
    personId, name: `test-${randomBytes(3).toString('hex')}`, createdBy: personId, expiresAt: null, autoRenew: false,
  });
  return { authorization: `Bearer ${t.token}` };
}
