import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../server/contracts/rbac.js';
import { insertAccessToken } from '../../server/modules/auth/tokens.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

/**
 * Every sign-in, people and roles route × every role, through a browser session and through a bearer token,
 * against spec 000 section 6: identities and rbac are read by admin and editor (editor reads all) and written by
 * admin only; everything else here is open to any signed-in user.
 */
type Subject = Role | 'none';
type Via = 'session' | 'token';
const SUBJECTS: Subject[] = ['admin', 'editor', 'commander', 'responder', 'viewer', 'none'];
const MISSING = '00000000-0000-4000-8000-00000000abcd';

interface Caller {
  id: string;
  headers: Record<string, string>;
}

interface Case {
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  url: (c: Caller) => string | Promise<string>;
  payload?: () => object;
  /** The status when allowed (the request itself may be invalid or aim at nothing) and when denied. */
  allowed: (s: Subject, via: Via) => boolean;
  ok: number | ((via: Via) => number);
  denied?: number;
}

const anyone = () => true;
const adminOnly = (s: Subject) => s === 'admin';
const readsAll = (s: Subject) => s === 'admin' || s === 'editor';

let t: TestContext;
let stranger: string;
let seq = 0;

const CASES: Case[] = [
  { name: 'whoami', method: 'GET', url: () => '/api/auth/whoami', allowed: anyone, ok: 200 },
  { name: 'csrf', method: 'GET', url: () => '/api/auth/csrf', allowed: anyone, ok: (via) => (via === 'session' ? 200 : 400) },
  { name: 'properties', method: 'GET', url: () => '/api/properties', allowed: anyone, ok: 200 },
  { name: 'list tokens', method: 'GET', url: () => '/api/auth/tokens', allowed: anyone, ok: 200 },
  {
    name: 'create token', method: 'POST', url: () => '/api/auth/create_token', payload: () => ({ name: `m${seq++}` }),
    allowed: (_s, via) => via === 'session', ok: 200,
  },
  {
    name: 'delete own token', method: 'DELETE', allowed: anyone, ok: 200,
    url: async (c) => `/api/auth/token/${(await tokenOf(c.id)).id}`,
  },
  {
    name: "delete someone else's token", method: 'DELETE', allowed: adminOnly, ok: 200, denied: 404,
    url: async () => `/api/auth/token/${(await tokenOf(stranger)).id}`,
  },
  { name: 'list users', method: 'GET', url: () => '/api/auth/users', allowed: readsAll, ok: 200 },
  { name: 'invite user', method: 'POST', url: () => '/api/auth/invite_user', payload: () => ({}), allowed: adminOnly, ok: 400 },
  {
    name: 'edit roles', method: 'POST', url: () => `/api/auth/${MISSING}/properties`, payload: () => ({ role: 'viewer' }),
    allowed: adminOnly, ok: 404,
  },
  {
    name: 'update state', method: 'POST', url: () => `/api/auth/${MISSING}/update_state`,
    payload: () => ({ state: 'inactive' }), allowed: adminOnly, ok: 404,
  },
  { name: 'delete person', method: 'DELETE', url: () => `/api/people/${MISSING}`, allowed: adminOnly, ok: 404 },
  {
    name: 'rbac update_role', method: 'POST', url: () => `/api/rbac/${MISSING}/update_role`,
    payload: () => ({ roles: ['viewer'] }), allowed: adminOnly, ok: 404,
  },
  { name: "rbac roles of another", method: 'GET', url: () => `/api/rbac/${stranger}/roles`, allowed: readsAll, ok: 200 },
  { name: 'rbac own roles', method: 'GET', url: (c) => `/api/rbac/${c.id}/roles`, allowed: anyone, ok: 200 },
];

function tokenOf(personId: string) {
  return insertAccessToken(t.db, { personId, name: `t${seq++}`, createdBy: personId, expiresAt: null, autoRenew: false });
}

const callers = new Map<string, Caller>();

beforeAll(async () => {
  t = await createTestApp();
  stranger = (await makePerson(t.db, { roles: ['viewer'] })).id;
  for (const s of SUBJECTS) {
    const p = await makePerson(t.db, { roles: s === 'none' ? [] : [s] });
    callers.set(`${s}/session`, { id: p.id, headers: await sessionHeaders(t.db, p.id) });
    callers.set(`${s}/token`, { id: p.id, headers: { authorization: `Bearer ${(await tokenOf(p.id)).token}` } });
  }
});
afterAll(() => t.close());

describe.each(SUBJECTS)('role %s', (subject) => {
  describe.each(['session', 'token'] as Via[])('via %s', (via) => {
    it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const caller = callers.get(`${subject}/${via}`)!;
      const res = await t.app.inject({ method: c.method, url: await c.url(caller), payload: c.payload?.(), headers: caller.headers });
      const allowed = c.allowed(subject, via);
      const expected = allowed ? (typeof c.ok === 'function' ? c.ok(via) : c.ok) : (c.denied ?? 403);
      expect(res.statusCode, res.body).toBe(expected);
      if (!allowed && expected === 403) expect(res.json()).toMatchObject({ error: expect.any(String) });
    });
  });
});

describe('without credentials', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s answers 401', async (_name, c) => {
    const res = await t.app.inject({ method: c.method, url: await c.url({ id: stranger, headers: {} }), payload: c.payload?.() });
    expect(res.statusCode).toBe(401);
  });

  it('login, logout and registration are public', async () => {
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'x', password: 'y' } });
    expect(login.statusCode).toBe(401);
    expect(login.json().error).toBe('invalid credentials');
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/logout' })).statusCode).toBe(200);
    const reg = await t.app.inject({ method: 'POST', url: '/api/auth/registration', payload: { invite: 'x', password: 'long enough' } });
    expect(reg.statusCode).toBe(400);
  });
});
