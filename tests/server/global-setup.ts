import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../server/db/embedded.js';
import { migrate } from '../../server/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of a database the tests may use to CREATE DATABASE ... TEMPLATE console_test_template. */
    adminUrl: string;
  }
}

export const TEMPLATE_DB = 'console_test_template';

let embedded: EmbeddedDatabase | undefined;
let dir: string | undefined;

// Several projects (vitest.config.ts) name this file; the first to run it starts the database, the others reuse it.
const SHARED = 'CONSOLE_TEST_SHARED_ADMIN_URL';

/**
 * One PostgreSQL for the whole run: the apt one when DATABASE_URL is set (CI's second pass), otherwise an embedded
 * one in a temp dir. Migrations are applied once to a template database; each test file clones it.
 */
export async function setup(project: TestProject) {
  const shared = process.env[SHARED];
  if (shared) {
    project.provide('adminUrl', shared);
    return;
  }
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    dir = await mkdtemp(join(tmpdir(), 'console-test-pg-'));
    const quiet = { info() {}, warn() {}, debug() {} };
    embedded = await startEmbeddedPostgres(dir, 0, quiet);
    adminUrl = embedded.url;
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB}`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  await admin.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${TEMPLATE_DB}`;
  const pool = new pg.Pool({ connectionString: templateUrl.toString(), max: 1 });
  await migrate(pool);
  await pool.end();
  project.provide('adminUrl', adminUrl);
  process.env[SHARED] = adminUrl;
}

export async function teardown() {
  delete process.env[SHARED];
  const e = embedded;
  embedded = undefined;
  await e?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
}
