import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { ensureAdmin } from '../../server/modules/auth/bootstrap.js';
import { createTestApp, makePerson, type TestContext } from './helpers.js';

let t: TestContext | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

function configFor(ctx: TestContext, env: Record<string, string> = {}) {
  return loadConfig({ DATABASE_URL: ctx.config.DATABASE_URL, ADMIN_EMAIL: 'root@ops.example.com', ...env });
}

async function login(ctx: TestContext, username: string, password: string) {
  return ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } });
}

const admins = async (ctx: TestContext) =>
  (await ctx.db.query(`SELECT person_id FROM person_roles WHERE role = 'admin'`)).rows.map((r) => r.person_id);

describe('ensureAdmin', () => {
  it('creates the admin once with a generated password printed once', async () => {
    t = await createTestApp();
    const config = configFor(t);
    const printed: string[] = [];
    await ensureAdmin(t.db, config, (l) => printed.push(l));
    const line = printed.find((l) => l.includes('generated password'));
    expect(line).toBeDefined();
    const password = line!.split('generated password: ')[1];
    expect(password.length).toBeGreaterThanOrEqual(20);

    const res = await login(t, 'root@ops.example.com', password);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ user: { name: 'Admin', email: 'root@ops.example.com' }, roles: ['admin'] });
    expect((await login(t, 'admin', password)).statusCode).toBe(200);

    const again: string[] = [];
    await ensureAdmin(t.db, config, (l) => again.push(l));
    expect(again).toEqual([]);
    expect(await admins(t)).toHaveLength(1);
    expect((await login(t, 'root@ops.example.com', password)).statusCode).toBe(200);
  });

  it('uses ADMIN_PASSWORD without printing it, and never changes it afterwards', async () => {
    t = await createTestApp();
    const printed: string[] = [];
    await ensureAdmin(t.db, configFor(t, { ADMIN_PASSWORD: 'first-password' }), (l) => printed.push(l));
    expect(printed.join('\n')).not.toContain('first-password');
    expect((await login(t, 'root@ops.example.com', 'first-password')).statusCode).toBe(200);

    const later: string[] = [];
    await ensureAdmin(t.db, configFor(t, { ADMIN_PASSWORD: 'second-password' }), (l) => later.push(l));
    expect(later.join('\n')).toMatch(/not applied/);
    expect(later.join('\n')).not.toContain('second-password');
    expect((await login(t, 'root@ops.example.com', 'second-password')).statusCode).toBe(401);
    expect((await login(t, 'root@ops.example.com', 'first-password')).statusCode).toBe(200);

    const same: string[] = [];
    await ensureAdmin(t.db, configFor(t, { ADMIN_PASSWORD: 'first-password' }), (l) => same.push(l));
    expect(same).toEqual([]);
  });

  it('does nothing when another active admin exists', async () => {
    t = await createTestApp();
    const other = await makePerson(t.db, { roles: ['admin'] });
    const printed: string[] = [];
    await ensureAdmin(t.db, configFor(t), (l) => printed.push(l));
    expect(printed).toEqual([]);
    expect(await admins(t)).toEqual([other.id]);
  });

  it('makes two starts at once create one admin', async () => {
    t = await createTestApp();
    const config = configFor(t);
    const printed: string[] = [];
    await Promise.all([ensureAdmin(t.db, config, (l) => printed.push(l)), ensureAdmin(t.db, config, (l) => printed.push(l))]);
    expect(await admins(t)).toHaveLength(1);
    expect(printed.filter((l) => l.includes('generated password'))).toHaveLength(1);
  });
});
