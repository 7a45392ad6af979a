import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSets } from '../../server/lib/demo.js';
import { DEMO_SETS } from '../../server/modules/demo/index.js';
import { createTestApp, type TestContext } from './helpers.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('foundation demo set', () => {
  it('is the first set, and loads once', async () => {
    expect(DEMO_SETS[0].name).toBe('foundation');
    expect(await loadDemoSets(t.db, DEMO_SETS)).toContain('foundation');
    expect(await loadDemoSets(t.db, DEMO_SETS)).toEqual([]);
  });

  it('adds people with identities and roles but no way to sign in', async () => {
    const { rows } = await t.db.query(
      `SELECT p.name, p.email, p.title, i.state, c.identity_id IS NOT NULL AS has_password,
              ARRAY(SELECT role FROM person_roles r WHERE r.person_id = p.id ORDER BY role) AS roles
       FROM people p JOIN identities i ON i.id = p.id LEFT JOIN identity_credentials c ON c.identity_id = p.id
       WHERE p.email LIKE '%@example.com' ORDER BY p.name`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(rows.every((r) => r.state === 'active' && !r.has_password && r.title)).toBe(true);
    expect(rows.find((r) => r.name === 'Bob Okafor')?.roles).toEqual(['commander']);
    const login = await t.app.inject({
      method: 'POST', url: '/api/auth/login', payload: { username: rows[0].email, password: 'anything at all' },
    });
    expect(login.statusCode).toBe(401);
  });

  it('adds two teams with members and one remote agent', async () => {
    const teams = await t.db.query(
      `SELECT t.name, count(m.person_id)::int AS members FROM teams t JOIN team_members m ON m.team_id = t.id
       GROUP BY t.name ORDER BY t.name`,
    );
    expect(teams.rows).toEqual([{ name: 'Payments', members: 3 }, { name: 'Platform SRE', members: 3 }]);
    const agents = await t.db.query(
      `SELECT name, hostname FROM agents WHERE id <> '00000000-0000-0000-0000-000000000000' AND deleted_at IS NULL ORDER BY name`,
    );
    // the agents demo set (issue 16) replaces eu-west-prod by a generated one and adds us-east-staging
    expect(agents.rows).toEqual([
      { name: 'eu-west-prod', hostname: expect.stringContaining('eu-west-1') },
      { name: 'us-east-staging', hostname: expect.stringContaining('us-east-1') },
    ]);
  });
});
