import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { bearerHeaders, createTestApp, makePerson, type TestContext } from './helpers.js';
import { connectLive, listen, type LiveClient } from './ws-client.js';

// Live updates across replicas (two apps on one database) and across a lost LISTEN connection.

let t: TestContext;
let second: FastifyInstance;
let admin: Record<string, string>;
let adminId: string;
const clients: LiveClient[] = [];

const createTeam = (app: FastifyInstance, name: string) =>
  app.inject({
    method: 'POST', url: '/api/db/teams', headers: { ...admin, 'content-type': 'application/json' },
    payload: JSON.stringify({ name, created_by: adminId }),
  });

/** Polls until `check` holds; fails after `ms`. */
async function until(check: () => Promise<boolean> | boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  t = await createTestApp();
  // a second replica: its own pool, its own LISTEN connection, the same database
  second = await buildApp(t.config, { logger: false });
  await second.ready();
  adminId = (await makePerson(t.db, { roles: ['admin'] })).id;
  admin = await bearerHeaders(t.db, adminId);
});
afterAll(async () => {
  for (const c of clients) c.close();
  await second?.close();
  await t.close();
});

describe('several replicas', () => {
  it('a client of one replica hears a write made through another', async () => {
    const onSecond = await connectLive(await listen(second), admin);
    const onFirst = await connectLive(await listen(t.app), admin);
    clients.push(onSecond, onFirst);
    const res = await createTeam(t.app, 'replica-a');
    expect(res.statusCode, res.payload).toBe(201);
    await onSecond.next((m) => m.type === 'change' && m.relation === 'teams');
    await onFirst.next((m) => m.type === 'change' && m.relation === 'teams');
  });
});

describe('a lost LISTEN connection', () => {
  it('reconnects after its backend is terminated, tells clients to resync, and delivers again', async () => {
    const client = await connectLive(await listen(t.app), admin);
    clients.push(client);
    const bus = t.app.events.bus;
    const lost = bus.pid;
    expect(lost).toEqual(expect.any(Number));
    const { rows } = await t.db.query('SELECT pg_terminate_backend($1) AS ok', [lost]);
    expect(rows[0].ok).toBe(true);

    // events published meanwhile are lost: the client is told to refetch everything
    await client.next((m) => m.type === 'resync', 10_000);
    expect(bus.listening).toBe(true);
    expect(bus.pid).not.toBe(lost);

    const res = await createTeam(second, 'after-recovery');
    expect(res.statusCode, res.payload).toBe(201);
    await client.next((m) => m.type === 'change' && m.relation === 'teams', 5_000);
  });

  it('keeps retrying with back-off while the database refuses it, and recovers', async () => {
    const client = await connectLive(await listen(t.app), admin);
    clients.push(client);
    const bus = t.app.events.bus;
    const resyncs = () => client.messages.filter((m) => m.type === 'resync').length;
    // refuse every new connection to the database for a moment (said from another database), then kill the
    // listener: its reconnects fail until connections are allowed again
    const superuser = new pg.Client({ connectionString: inject('adminUrl') });
    await superuser.connect();
    const name = await dbName();
    try {
      await superuser.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await t.db.query('SELECT pg_terminate_backend($1)', [bus.pid]);
      await until(() => !bus.listening, 5_000, 'listener loss noticed');
      await new Promise((r) => setTimeout(r, 1_000)); // a few failed attempts
      expect(bus.listening).toBe(false);
    } finally {
      await superuser.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await superuser.end();
    }
    await until(() => bus.listening, 10_000, 'listener restored');
    await until(() => resyncs() >= 1, 5_000, 'resync sent');
  });
});

async function dbName(): Promise<string> {
  return (await t.db.query<{ n: string }>('SELECT current_database() AS n')).rows[0].n;
}
