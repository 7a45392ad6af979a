import type { EventResource, EventSource, Q } from '../types.js';

export const PLAYBOOK_EVENTS = ['playbook.run', 'playbook.approval.inserted', 'playbook.spec.approval.updated'] as const;

/** The run statuses that write playbook.run (0084), as the engine's FINAL_RUN_STATUSES. */
export const PLAYBOOK_RUN_FINAL = ['completed', 'failed', 'cancelled', 'timed_out'] as const;

type Row = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const strings = (v: unknown): Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]))
    : {};

/** completed → healthy, failed / timed_out → unhealthy, anything else (cancelled, still running…) → unknown. */
export function runHealth(status: string | null): string {
  return status === 'completed' ? 'healthy' : status === 'failed' || status === 'timed_out' ? 'unhealthy' : 'unknown';
}

/** A run and its playbook; parameters read masked (secret ones `***`, 0074), the playbook without its spec. */
async function runWithPlaybook(db: Q, runId: string): Promise<{ run: Row; playbook: Row } | null> {
  const { rows } = await db.query<{ run: Row; playbook: Row }>(
    `SELECT jsonb_build_object('id', r.id, 'status', r.status, 'error', r.error, 'playbook_id', r.playbook_id,
              'parameters', playbook_run_parameters_masked(r.parameters), 'created_at', r.created_at,
              'start_time', r.start_time, 'end_time', r.end_time, 'created_by', r.created_by, 'check_id', r.check_id,
              'config_id', r.config_id, 'component_id', r.component_id, 'parent_id', r.parent_id) AS run,
            to_jsonb(p) - 'spec' AS playbook
       FROM playbook_runs r JOIN playbooks p ON p.id = r.playbook_id
      WHERE r.id = $1`,
    [runId]);
  return rows[0] ?? null;
}

async function playbookOnly(db: Q, id: string): Promise<Row | null> {
  const { rows } = await db.query<{ playbook: Row }>(
    `SELECT to_jsonb(p) - 'spec' || jsonb_build_object('approval', p.spec -> 'approval') AS playbook
       FROM playbooks p WHERE p.id = $1 AND p.deleted_at IS NULL`, [id]);
  return rows[0]?.playbook ?? null;
}

const nameOf = (playbook: Row, fallback: string) => str(playbook.title) || str(playbook.name) || fallback;

/**
 * playbook.run (a run finished: completed, failed, cancelled, timed_out), playbook.approval.inserted (event_id: the
 * run) and playbook.spec.approval.updated (event_id: the playbook), written by 0084's triggers. The resource is the run
 * (named after its playbook), or the playbook for a spec change; env {playbook, run}. Playbooks cannot be silenced.
 */
export const playbookSource: EventSource = {
  kind: 'playbook',
  events: PLAYBOOK_EVENTS,
  variables: ['playbook', 'run'],
  async load(db, event): Promise<EventResource | null> {
    if (!event.event_id) return null;
    if (event.name === 'playbook.spec.approval.updated') {
      const playbook = await playbookOnly(db, event.event_id);
      if (!playbook) return null;
      return {
        kind: 'playbook',
        id: event.event_id,
        name: nameOf(playbook, event.event_id),
        type: str(playbook.category) || null,
        health: null,
        status: null,
        description: str(playbook.description),
        labels: strings(playbook.labels),
        permalink: `/playbooks/${encodeURIComponent(event.event_id)}`,
        env: { playbook, run: null },
        silenceKeys: {},
      };
    }
    const found = await runWithPlaybook(db, event.event_id);
    if (!found) return null;
    const { run, playbook } = found;
    const status = str(run.status);
    return {
      kind: 'playbook',
      id: event.event_id,
      name: nameOf(playbook, event.event_id),
      type: str(playbook.category) || null,
      health: runHealth(status),
      status,
      description: str(run.error) ?? str(playbook.description),
      labels: strings(playbook.labels),
      permalink: `/playbooks/runs/${encodeURIComponent(event.event_id)}`,
      env: { playbook, run },
      silenceKeys: {},
    };
  },
  // A finished run keeps its status; an approval or a spec change stays true once it happened.
  stillMatches: (resource, eventName) =>
    eventName === 'playbook.run' ? (PLAYBOOK_RUN_FINAL as readonly string[]).includes(resource.status ?? '') : true,
};
