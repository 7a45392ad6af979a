import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveRun, createRun } from '../../server/modules/playbooks/runs.js';
import { createTestApp, type TestContext } from './helpers.js';
import { insertPlaybook } from './playbooks-engine-support.js';

let ctx: TestContext;
const people: Record<string, string> = {};
let opsTeam = '';

async function person(name: string): Promise<string> {
  const { rows } = await ctx.db.query<{ id: string }>('INSERT INTO people (name, email) VALUES ($1, $2) RETURNING id', [name, `${name}@example.test`]);
  return rows[0].id;
}

beforeAll(async () => {
  ctx = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
  for (const n of ['alice', 'bob', 'carol', 'dave', 'erin']) people[n] = await person(n);
  const { rows } = await ctx.db.query<{ id: string }>("INSERT INTO teams (name, created_by) VALUES ('ops', $1) RETURNING id", [people.alice]);
  opsTeam = rows[0].id;
  for (const n of ['dave', 'erin']) await ctx.db.query('INSERT INTO team_members (team_id, person_id) VALUES ($1, $2)', [opsTeam, people[n]]);
});

afterAll(async () => {
  await ctx?.close();
});

async function status(id: string): Promise<string> {
  return (await ctx.db.query('SELECT status FROM playbook_runs WHERE id = $1', [id])).rows[0].status;
}

async function approvals(id: string) {
  const { rows } = await ctx.db.query('SELECT person_id, team_id FROM playbook_approvals WHERE run_id = $1 ORDER BY created_at, id', [id]);
  return rows;
}

const spec = (type: 'any' | 'all') => ({
  approval: { type, approvers: { people: ['alice@example.test'], teams: ['ops'] } },
  actions: [{ name: 'one', testStep: {} }],
});

describe('playbook run approvals', () => {
  it('without approvers a run is scheduled at once', async () => {
    const pb = await insertPlaybook(ctx.db, { actions: [{ name: 'one', testStep: {} }] });
    const { run_id, starts_at } = await createRun(ctx.db, { playbook: pb, params: {}, createdBy: people.bob });
    expect(await status(run_id)).toBe('scheduled');
    expect(Number.isNaN(Date.parse(starts_at))).toBe(false);
  });

  it('any: pending until one listed approver approves; someone not listed (directly or by team) gets 403', async () => {
    const pb = await insertPlaybook(ctx.db, spec('any'));
    const { run_id } = await createRun(ctx.db, { playbook: pb, params: {}, createdBy: people.bob });
    expect(await status(run_id)).toBe('pending_approval');
    await expect(approveRun(ctx.db, run_id, people.carol)).rejects.toMatchObject({ statusCode: 403 });
    await expect(approveRun(ctx.db, run_id, people.bob)).rejects.toMatchObject({ statusCode: 403 });
    expect(await status(run_id)).toBe('pending_approval');
    expect(await approveRun(ctx.db, run_id, people.dave)).toEqual({ status: 'scheduled' });
    expect(await status(run_id)).toBe('scheduled');
    expect(await approvals(run_id)).toEqual([{ person_id: people.dave, team_id: opsTeam }]);
    await expect(approveRun(ctx.db, run_id, people.alice)).rejects.toMatchObject({ statusCode: 400 });
  });

  it('all: every listed person and every listed team must approve', async () => {
    const pb = await insertPlaybook(ctx.db, spec('all'));
    const { run_id } = await createRun(ctx.db, { playbook: pb, params: {}, createdBy: people.bob });
    expect(await approveRun(ctx.db, run_id, people.erin)).toEqual({ status: 'pending_approval' });
    // a second member of the same team adds nothing the run still needs
    expect(await approveRun(ctx.db, run_id, people.dave)).toEqual({ status: 'pending_approval' });
    expect(await status(run_id)).toBe('pending_approval');
    expect(await approveRun(ctx.db, run_id, people.alice)).toEqual({ status: 'scheduled' });
    expect(await status(run_id)).toBe('scheduled');
  });

  it('a requester who is an approver is auto-approved: an approval row, the run scheduled', async () => {
    const pb = await insertPlaybook(ctx.db, spec('any'));
    const { run_id } = await createRun(ctx.db, { playbook: pb, params: {}, createdBy: people.alice });
    expect(await status(run_id)).toBe('scheduled');
    expect(await approvals(run_id)).toEqual([{ person_id: people.alice, team_id: null }]);

    const viaTeam = await createRun(ctx.db, { playbook: pb, params: {}, createdBy: people.erin });
    expect(await status(viaTeam.run_id)).toBe('scheduled');
    expect(await approvals(viaTeam.run_id)).toEqual([{ person_id: people.erin, team_id: opsTeam }]);
  });

  it('approving an unknown run is a 404', async () => {
    await expect(approveRun(ctx.db, '00000000-0000-0000-0000-0000000000aa', people.alice)).rejects.toMatchObject({ statusCode: 404 });
  });
});
