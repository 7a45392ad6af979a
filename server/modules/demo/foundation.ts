import type pg from 'pg';
import type { DemoSet } from '../../lib/demo.js';

interface DemoPerson {
  first: string;
  last: string;
  email: string;
  title: string;
  roles: string[];
}

// Demo people have identities (so they appear everywhere people do) but no credentials: nobody signs in as them.
const PEOPLE: DemoPerson[] = [
  { first: 'Alice', last: 'Nguyen', email: 'alice.nguyen@example.com', title: 'SRE lead', roles: ['editor'] },
  { first: 'Bob', last: 'Okafor', email: 'bob.okafor@example.com', title: 'Incident commander', roles: ['commander'] },
  { first: 'Carla', last: 'Mendes', email: 'carla.mendes@example.com', title: 'Backend engineer', roles: ['responder'] },
  { first: 'Dmitri', last: 'Volkov', email: 'dmitri.volkov@example.com', title: 'Platform engineer', roles: ['responder', 'editor'] },
  { first: 'Emma', last: 'Schmidt', email: 'emma.schmidt@example.com', title: 'Product manager', roles: [] },
  { first: 'Farid', last: 'Haddad', email: 'farid.haddad@example.com', title: 'Payments engineer', roles: ['responder'] },
];

const TEAMS = [
  { name: 'Platform SRE', icon: 'kubernetes', members: ['alice.nguyen@example.com', 'bob.okafor@example.com', 'dmitri.volkov@example.com'] },
  { name: 'Payments', icon: 'database', members: ['carla.mendes@example.com', 'emma.schmidt@example.com', 'farid.haddad@example.com'] },
];

const AGENT = {
  name: 'eu-west-prod',
  hostname: 'mission-control-agent.eu-west-1.internal',
  description: 'Agent in the production cluster, eu-west-1',
  ip: '10.20.0.15',
  version: '0.1.0',
};

/** The identity for an email, inserted (and mirrored into people by trigger) when missing. */
async function identity(client: pg.PoolClient, p: DemoPerson): Promise<string> {
  const found = await client.query<{ id: string }>(
    "SELECT id FROM identities WHERE lower(traits ->> 'email') = lower($1)", [p.email],
  );
  if (found.rows[0]) return found.rows[0].id;
  const { rows } = await client.query<{ id: string }>(
    'INSERT INTO identities (traits) VALUES ($1) RETURNING id',
    [{ email: p.email, name: { first: p.first, last: p.last } }],
  );
  return rows[0].id;
}

/** A few people with roles, two teams with members and one remote agent. */
export const foundationDemo: DemoSet = {
  name: 'foundation',
  async load(client) {
    const ids = new Map<string, string>();
    for (const p of PEOPLE) {
      const id = await identity(client, p);
      ids.set(p.email, id);
      await client.query('UPDATE people SET title = $2 WHERE id = $1', [id, p.title]);
      for (const role of p.roles) {
        await client.query('INSERT INTO person_roles (person_id, role) VALUES ($1, $2) ON CONFLICT DO NOTHING', [id, role]);
      }
    }
    const owner = ids.get(PEOPLE[0].email)!;
    for (const t of TEAMS) {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO teams (name, icon, spec, source, created_by)
         SELECT $1, $2, '{}'::jsonb, 'UI', $3
         WHERE NOT EXISTS (SELECT 1 FROM teams WHERE name = $1 AND deleted_at IS NULL)
         RETURNING id`,
        [t.name, t.icon, owner],
      );
      if (!rows[0]) continue;
      for (const email of t.members) {
        await client.query('INSERT INTO team_members (team_id, person_id) VALUES ($1, $2)', [rows[0].id, ids.get(email)]);
      }
    }
    await client.query(
      `INSERT INTO agents (name, hostname, description, ip, version, created_by, last_seen, last_received)
       SELECT $1, $2, $3, $4, $5, $6, now() - interval '20 seconds', now() - interval '20 seconds'
       WHERE NOT EXISTS (SELECT 1 FROM agents WHERE name = $1 AND deleted_at IS NULL)`,
      [AGENT.name, AGENT.hostname, AGENT.description, AGENT.ip, AGENT.version, owner],
    );
  },
};
