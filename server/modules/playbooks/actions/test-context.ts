import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { SecretMasker } from '../../../lib/secret-mask.js';
import type { ActionContext, ActionOptions } from './types.js';

/**
 * For the actions' tests: a database cloned from the migrated template (no app), and an ActionContext that records
 * what the action logged and which secrets it handed to the masker.
 */
export interface TestDb {
  pool: pg.Pool;
  url: string;
  close(): Promise<void>;
}

export async function createTestDb(): Promise<TestDb> {
  const adminUrl = inject('adminUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE console_test_template`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: u.toString(), max: 4 });
  pool.on('error', () => {});
  return {
    pool,
    url: u.toString(),
    async close() {
      await pool.end();
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export interface RecordingContext extends ActionContext {
  lines: Array<{ stream: 'stdout' | 'stderr'; text: string }>;
  secrets: string[];
  controller: AbortController;
  output(): string;
}

export function testContext(db: pg.Pool, opts: Partial<ActionOptions> & { timeoutMs?: number } = {}): RecordingContext {
  const controller = new AbortController();
  const lines: RecordingContext['lines'] = [];
  const secrets: string[] = [];
  return {
    runId: randomUUID(),
    actionId: randomUUID(),
    name: 'test-action',
    signal: controller.signal,
    deadline: Date.now() + (opts.timeoutMs ?? 60_000),
    log: (stream, text) => lines.push({ stream, text }),
    addSecret: (v) => secrets.push(v),
    mask: (text) => {
      const m = new SecretMasker();
      for (const s of secrets) m.add(s);
      return m.mask(text);
    },
    db,
    env: {},
    options: { dataDir: '/tmp', execEnabled: true, ...opts },
    lines,
    secrets,
    controller,
    output: () => lines.map((l) => l.text).join(''),
  };
}

/** Inserts a `connections` row; returns its id. */
export async function insertConnection(db: pg.Pool, row: { name: string; namespace?: string; type: string; url?: string; username?: string; password?: string; properties?: Record<string, unknown>; insecure_tls?: boolean }): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO connections (name, namespace, type, url, username, password, properties, insecure_tls, source)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'UI') RETURNING id`,
    [row.name, row.namespace ?? 'default', row.type, row.url ?? null, row.username ?? null, row.password ?? null, row.properties ?? {}, row.insecure_tls ?? false],
  );
  return rows[0].id;
}
