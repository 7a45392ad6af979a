import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { can, type Resource, type Role } from '../../server/contracts/rbac.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// The relation × role × read/write matrix at the HTTP level: what the spec's permission table allows succeeds, what
// it denies answers 403 and changes nothing.

type Fixture = () => Promise<Record<string, unknown>>;
interface Case {
  relation: string;
  resource: Resource;
  /** A valid new row, or undefined when the relation takes no writes through /api/db. */
  insert?: Fixture;
  /** A filter that matches one existing row, for PATCH and DELETE. */
  target?: () => Promise<{ filter: string; patch: Record<string, unknown> }>;
  /** False when the write policy refuses DELETE through /api/db. */
  deletable?: boolean;
  /** False when rows are made elsewhere (agents: POST /api/agent/generate) and POST is refused. */
  insertable?: boolean;
}

const uniq = () => randomBytes(4).toString('hex');
let t: TestContext;
let adminId: string;

const CASES: Case[] = [
  {
    relation: 'people', resource: 'database', deletable: false,
    insert: async () => ({ name: `Person ${uniq()}` }),
    target: async () => {
      const { rows } = await t.db.query(`INSERT INTO people (name) VALUES ($1) RETURNING id`, [`P ${uniq()}`]);
      return { filter: `id=eq.${rows[0].id}`, patch: { title: 'SRE' } };
    },
  },
  {
    relation: 'teams', resource: 'database',
    insert: async () => ({ name: `team-${uniq()}` }), // created_by: the caller (stamped)
    target: async () => {
      const { rows } = await t.db.query(`INSERT INTO teams (name, created_by) VALUES ($1, $2) RETURNING id`, [`t-${uniq()}`, adminId]);
      return { filter: `id=eq.${rows[0].id}`, patch: { icon: 'k8s' } };
    },
  },
  {
    relation: 'team_members', resource: 'database',
    insert: async () => {
      const team = await t.db.query(`INSERT INTO teams (name, created_by) VALUES ($1, $2) RETURNING id`, [`t-${uniq()}`, adminId]);
      return { team_id: team.rows[0].id, person_id: adminId };
    },
    target: async () => {
      const team = await t.db.query(`INSERT INTO teams (name, created_by) VALUES ($1, $2) RETURNING id`, [`t-${uniq()}`, adminId]);
      await t.db.query(`INSERT INTO team_members (team_id, person_id) VALUES ($1, $2)`, [team.rows[0].id, adminId]);
      return { filter: `team_id=eq.${team.rows[0].id}&person_id=eq.${adminId}`, patch: { source: 'KubernetesCRD' } };
    },
  },
  {
    relation: 'properties', resource: 'feature_flags',
    insert: async () => ({ name: `flag.${uniq()}`, value: 'true' }),
    target: async () => {
      const name = `flag.${uniq()}`;
      await t.db.query(`INSERT INTO properties (name, value) VALUES ($1, 'false')`, [name]);
      return { filter: `name=eq.${name}`, patch: { value: 'true' } };
    },
  },
  {
    relation: 'agents', resource: 'agents',
    insert: async () => ({ name: `agent-${uniq()}` }),
    target: async () => {
      const { rows } = await t.db.query(`INSERT INTO agents (name) VALUES ($1) RETURNING id`, [`a-${uniq()}`]);
      return { filter: `id=eq.${rows[0].id}`, patch: { cleanup: true } };
    },
    deletable: false,
    insertable: false,
  },
  { relation: 'agents_summary', resource: 'agents', insert: async () => ({ name: `agent-${uniq()}` }) },
  { relation: 'identities', resource: 'identities', insert: async () => ({ traits: { email: `${uniq()}@x.test` } }) },
  { relation: 'people_roles', resource: 'rbac', insert: async () => ({ name: 'x' }) },
  { relation: 'access_tokens', resource: 'kratos', insert: async () => ({ name: 'x', person_id: adminId, value: 'x' }) },
  { relation: 'invites', resource: 'auth', insert: async () => ({ email: `${uniq()}@x.test`, role: 'admin' }) },
];

const ROLES: (Role | 'none')[] = ['admin', 'editor', 'commander', 'responder', 'viewer', 'none'];
const headersByRole = new Map<string, Record<string, string>>();

/** Rows of the relation's table matching `a=eq.x&b=eq.y`, counted straight in the database. */
async function count(relation: string, filter = ''): Promise<number> {
  const table = relation === 'agents_summary' ? 'agents' : relation === 'people_roles' ? 'people' : relation;
  const pairs = filter ? filter.split('&').map((p) => p.split('=eq.')) : [];
  const where = pairs.map(([col], i) => `${col}::text = $${i + 1}`).join(' AND ') || 'true';
  const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, pairs.map(([, v]) => v));
  return rows[0].n;
}

beforeAll(async () => {
  t = await createTestApp();
  adminId = (await makePerson(t.db, { roles: ['admin'] })).id;
  for (const role of ROLES) {
    const p = await makePerson(t.db, { roles: role === 'none' ? [] : [role] });
    headersByRole.set(role, await sessionHeaders(t.db, p.id));
  }
});
afterAll(() => t.close());

describe.each(CASES)('/api/db/$relation', (c) => {
  it.each(ROLES)('read as %s follows the permission table', async (role) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/db/${c.relation}?limit=5`, headers: headersByRole.get(role) });
    const allowed = can(role === 'none' ? [] : [role], c.resource, 'read');
    expect(res.statusCode, res.payload).toBe(allowed ? 200 : 403);
    if (allowed) expect(Array.isArray(res.json())).toBe(true);
  });

  it.each(ROLES)('insert as %s follows the permission table and the write policy', async (role) => {
    const rolesOf = role === 'none' ? [] : [role];
    const row = await c.insert!();
    const before = await count(c.relation);
    const res = await t.app.inject({
      method: 'POST', url: `/api/db/${c.relation}`, payload: row,
      headers: { ...headersByRole.get(role), 'content-type': 'application/json' },
    });
    const allowed = can(rolesOf, c.resource, 'write') && c.target !== undefined && c.insertable !== false;
    if (!can(rolesOf, c.resource, 'write')) expect(res.statusCode, res.payload).toBe(403);
    else if (allowed) expect(res.statusCode, res.payload).toBe(201);
    else expect(res.statusCode, res.payload).toBeGreaterThanOrEqual(400);
    expect(await count(c.relation)).toBe(before + (allowed ? 1 : 0));
  });

  it.each(ROLES)('update and delete as %s follow the permission table', async (role) => {
    if (!c.target) return;
    const allowed = can(role === 'none' ? [] : [role], c.resource, 'write');
    const { filter, patch } = await c.target();
    const headers = { ...headersByRole.get(role), 'content-type': 'application/json' };
    const upd = await t.app.inject({ method: 'PATCH', url: `/api/db/${c.relation}?${filter}`, payload: patch, headers });
    expect(upd.statusCode, upd.payload).toBe(allowed ? 204 : 403);
    const [key, value] = Object.entries(patch)[0];
    expect(await count(c.relation, `${filter}&${key}=eq.${value}`)).toBe(allowed ? 1 : 0);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/db/${c.relation}?${filter}`, headers });
    const deleted = allowed && c.deletable !== false;
    expect(del.statusCode, del.payload).toBe(deleted ? 204 : allowed ? 405 : 403);
    expect(await count(c.relation, filter)).toBe(deleted ? 0 : 1);
  });
});
