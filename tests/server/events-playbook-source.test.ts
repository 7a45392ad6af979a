import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceOfEvent } from '../../server/modules/events/sources/index.js';
import { playbookSource } from '../../server/modules/events/sources/playbook.js';
import { startRecorder, type HttpRecorder } from '../support/http-recorder.js';
import { until } from '../support/poll.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * The playbook event source (issue 15 "Events"): 0084's triggers write playbook.run, playbook.approval.inserted and
 * playbook.spec.approval.updated in the transaction of the change (asserted inside it, then rolled back, so the app's
 * consumer cannot race the assertion); the source loads the run; a rule on playbook.run reaches a webhook.
 */

let t: TestContext;
let rec: HttpRecorder;
beforeAll(async () => {
  rec = await startRecorder();
  t = await createTestApp({ PLAYBOOK_ENGINE: 'off' });
});
afterAll(async () => {
  await t?.close();
  await rec?.close();
});

type Event = { name: string; event_id: string; properties: Record<string, unknown> | null };
let seq = 0;

async function inRolledBack<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await t.db.connect();
  try {
    await c.query('BEGIN');
    return await work(c);
  } finally {
    await c.query('ROLLBACK');
    c.release();
  }
}

const events = async (c: pg.PoolClient, name: string): Promise<Event[]> =>
  (await c.query<Event>(`SELECT name, event_id::text, properties FROM event_queue WHERE name = $1 ORDER BY created_at`, [name])).rows;

async function makePlaybook(q: Pick<pg.Pool, 'query'>, spec: Record<string, unknown> = { actions: [] }): Promise<string> {
  const { rows } = await q.query<{ id: string }>(
    `INSERT INTO playbooks (name, title, category, labels, spec) VALUES ($1, $2, 'ops', '{"team":"sre"}', $3) RETURNING id`,
    [`restart-${++seq}`, `Restart pod ${seq}`, spec]);
  return rows[0].id;
}

async function makeRun(q: Pick<pg.Pool, 'query'>, playbookId: string, parameters: Record<string, unknown> = {}): Promise<string> {
  const { rows } = await q.query<{ id: string }>(
    `INSERT INTO playbook_runs (playbook_id, status, parameters) VALUES ($1, 'running', $2) RETURNING id`, [playbookId, parameters]);
  return rows[0].id;
}

describe('triggers', () => {
  it('playbook.run when a run finishes (completed, failed, cancelled, timed_out), not for other status changes', async () => {
    await inRolledBack(async (c) => {
      const pb = await makePlaybook(c);
      const runs: Record<string, string> = {};
      for (const s of ['completed', 'failed', 'cancelled', 'timed_out', 'waiting']) {
        runs[s] = await makeRun(c, pb);
        await c.query('UPDATE playbook_runs SET status = $2 WHERE id = $1', [runs[s], s]);
      }
      const found = await events(c, 'playbook.run');
      expect(found.map((e) => e.event_id).sort()).toEqual(['completed', 'failed', 'cancelled', 'timed_out'].map((s) => runs[s]).sort());
      expect(found.find((e) => e.event_id === runs.failed)?.properties).toMatchObject({ status: 'failed', previous: 'running', playbook_id: pb });
      // an update that leaves the status as it is writes nothing more
      await c.query("DELETE FROM event_queue WHERE name = 'playbook.run'");
      await c.query("UPDATE playbook_runs SET status = 'failed', error = 'again' WHERE id = $1", [runs.failed]);
      await c.query("UPDATE playbook_runs SET end_time = now() WHERE id = $1", [runs.completed]);
      expect(await events(c, 'playbook.run')).toEqual([]);
    });
  });

  it('playbook.approval.inserted on a new approval (event_id: the run)', async () => {
    await inRolledBack(async (c) => {
      const run = await makeRun(c, await makePlaybook(c));
      const a = await c.query<{ id: string }>('INSERT INTO playbook_approvals (run_id) VALUES ($1) RETURNING id', [run]);
      const found = await events(c, 'playbook.approval.inserted');
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ event_id: run, properties: { approval_id: a.rows[0].id } });
    });
  });

  it('playbook.spec.approval.updated only when spec.approval changes', async () => {
    await inRolledBack(async (c) => {
      const pb = await makePlaybook(c, { actions: [] });
      await c.query(`UPDATE playbooks SET spec = spec || '{"description":"x"}' WHERE id = $1`, [pb]);
      expect(await events(c, 'playbook.spec.approval.updated')).toEqual([]);
      await c.query(`UPDATE playbooks SET spec = spec || '{"approval":{"approvers":{"people":["a@b.c"]}}}' WHERE id = $1`, [pb]);
      const found = await events(c, 'playbook.spec.approval.updated');
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ event_id: pb, properties: { approval: { approvers: { people: ['a@b.c'] } } } });
      const r = await playbookSource.load(c, found[0]);
      expect(r).toMatchObject({ kind: 'playbook', id: pb, name: `Restart pod ${seq}`, health: null, permalink: `/playbooks/${pb}` });
      expect((r!.env.playbook as Record<string, unknown>).approval).toEqual({ approvers: { people: ['a@b.c'] } });
    });
  });
});

describe('the source', () => {
  it('is registered for its three events; load() returns the run named after its playbook, secret parameters masked', async () => {
    for (const e of ['playbook.run', 'playbook.approval.inserted', 'playbook.spec.approval.updated']) expect(sourceOfEvent(e)).toBe(playbookSource);
    expect(playbookSource.variables).toEqual(['playbook', 'run']);
    await inRolledBack(async (c) => {
      const pb = await makePlaybook(c);
      const title = `Restart pod ${seq}`;
      const health: Record<string, string> = {};
      for (const s of ['completed', 'failed', 'timed_out', 'cancelled']) {
        const run = await makeRun(c, pb, { pod: 'api-1', token: 'enc:v1:sealed' });
        await c.query(`UPDATE playbook_runs SET status = $2, error = CASE WHEN $2 = 'failed' THEN 'exit 1' END WHERE id = $1`, [run, s]);
        const r = await playbookSource.load(c, { name: 'playbook.run', event_id: run, properties: { status: s } });
        expect(r).toMatchObject({ kind: 'playbook', id: run, name: title, status: s, permalink: `/playbooks/runs/${run}`, labels: { team: 'sre' } });
        health[s] = r!.health!;
        expect(playbookSource.stillMatches(r!, 'playbook.run')).toBe(true);
        const env = r!.env as { run: Record<string, unknown>; playbook: Record<string, unknown> };
        expect(env.run).toMatchObject({ id: run, status: s, parameters: { pod: 'api-1', token: '***' } });
        expect(env.playbook).toMatchObject({ id: pb, title });
        expect(env.playbook.spec).toBeUndefined();
        if (s === 'failed') expect(env.run.error).toBe('exit 1');
        // a run sent back to running (a retry) no longer fits its playbook.run
        await c.query(`UPDATE playbook_runs SET status = 'retrying' WHERE id = $1`, [run]);
        const again = await playbookSource.load(c, { name: 'playbook.run', event_id: run, properties: { status: s } });
        expect(playbookSource.stillMatches(again!, 'playbook.run')).toBe(false);
        expect(again!.health).toBe('unknown');
      }
      expect(health).toEqual({ completed: 'healthy', failed: 'unhealthy', timed_out: 'unhealthy', cancelled: 'unknown' });
      expect(await playbookSource.load(c, { name: 'playbook.run', event_id: '00000000-0000-0000-0000-00000000dead', properties: null })).toBeNull();
    });
  });
});

describe('a rule on playbook.run', () => {
  it('sends to a generic webhook when a run fails, and not for a completed run the filter leaves out', async () => {
    const { rows } = await t.db.query<{ id: string }>(
      `INSERT INTO notifications (name, events, filter, custom_services) VALUES ('runs-failing', $1, $2, $3) RETURNING id`,
      [['playbook.run'], 'run.status == "failed"', JSON.stringify([{ url: `generic+${rec.url}/runs` }])]);
    const ruleId = rows[0].id;
    const pb = await makePlaybook(t.db);
    const ok = await makeRun(t.db, pb);
    const bad = await makeRun(t.db, pb);
    await t.db.query(`UPDATE playbook_runs SET status = 'completed' WHERE id = $1`, [ok]);
    await t.db.query(`UPDATE playbook_runs SET status = 'failed', error = 'exit 1' WHERE id = $1`, [bad]);
    const sent = await until(async () => {
      const h = await t.db.query<{ status: string; resource_id: string | null }>(
        'SELECT status, resource_id::text FROM notification_send_history WHERE notification_id = $1', [ruleId]);
      return h.rows.length > 0 && h.rows.every((r) => r.status !== 'pending' && r.status !== 'sending') && h.rows;
    }, 'the playbook.run send', 20_000);
    expect(sent.map((r) => r.status)).toEqual(['sent']);
    await t.app.eventQueue.drain();
    expect(rec.on('/runs')).toHaveLength(1);
    expect(rec.on('/runs')[0].body).toContain(`Playbook Restart pod ${seq} run failed`);
    expect(rec.on('/runs')[0].body).toContain(bad);
  });
});
