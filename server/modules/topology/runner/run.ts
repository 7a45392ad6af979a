import type { KubeConfig } from '@kubernetes/client-node';
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { startJob, type JobStatus } from '../../../lib/job-history.js';
import { problemText, topologySpecProblems } from '../spec.js';
import { buildTopology, DEFAULT_LOOKUP_TIMEOUT_MS } from './build.js';
import { writeTopologyStatus } from './cr-status.js';
import { applyExpressions } from './expressions.js';
import { pushBody, wantsPush, type Pusher } from './push.js';
import type { TopologyRecord } from './queries.js';
import { saveTree, type SaveCounts } from './save.js';
import type { LinkStep, LookupRunner } from './types.js';

export interface RunDeps {
  db: pg.Pool;
  log: FastifyBaseLogger;
  /** Runs `lookup` blocks (runner/lookup); resolved once by the TopologyRunner. */
  lookup: LookupRunner;
  /** The link steps, in order (runner/links LINK_STEPS). */
  linkSteps: LinkStep[];
  /** Posts the tree to the spec's `push` location (runner/push.ts); without it a `push` is a line of the errors. */
  push?: Pusher;
  kube?: KubeConfig;
  /** Aborted when the console stops. */
  signal?: AbortSignal;
  lookupTimeoutMs?: number;
}

export interface RunOutcome {
  job_history_id: string | null;
  status: Exclude<JobStatus, 'RUNNING'>;
  /** Live components after the run. */
  count: number;
  errors: string[];
  counts: SaveCounts | null;
  /** The root's status after the roll-up (the CR's `status`). */
  rootStatus: string | null;
  /** Wall milliseconds of each phase (build, save, each link step by name, expressions); also in the job's details. */
  timings: Record<string, number>;
}

/** Errors and notes kept in a job's details. */
const MAX_ERRORS = 50;
const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 1_000);

/**
 * One run of a topology (the reference's `TopologyRun` job): build (lookups with their timeouts), save in one
 * transaction, the link steps (each failure a line, never the run's end), healthExpr/statusExpr after the roll-up,
 * one job_history row (`TopologyRun`, `topology`, the topology id): SUCCESS, WARNING when something failed but
 * components were saved, FAILED when nothing was. Then the run on the Topology CR's status. Never throws.
 */
export async function runTopology(deps: RunDeps, topology: TopologyRecord): Promise<RunOutcome> {
  const job = startJob(deps.db, { name: 'TopologyRun', resourceType: 'topology', resourceId: topology.id });
  const spec = topology.spec ?? {};
  const errors: string[] = [];
  const notes: string[] = [];
  let counts: SaveCounts | null = null;
  let count = 0;
  let rootStatus: string | null = null;
  let failed = false;
  const timings: Record<string, number> = {};
  let t0 = performance.now();
  // the time since the previous mark, under `phase` (where a slow run spends its time, without a profiler)
  const mark = (phase: string) => { const t = performance.now(); timings[phase] = Math.round(t - t0); t0 = t; };
  try {
    // a CR stored before validation: nothing is built (and nothing deleted) until it is fixed
    const problems = topologySpecProblems(spec);
    if (problems.length) throw new Error(problems.map(problemText).join('; '));
    const built = await buildTopology({ ...topology, spec }, {
      lookup: deps.lookup, signal: deps.signal, lookupTimeoutMs: deps.lookupTimeoutMs,
      context: { namespace: topology.namespace, topologyId: topology.id, db: deps.db, log: deps.log },
    });
    errors.push(...built.errors);
    mark('build');
    if (deps.signal?.aborted) throw new Error('the run was stopped');
    const schedule = typeof spec.schedule === 'string' && spec.schedule.trim() ? spec.schedule : topology.schedule;
    const saved = await saveTree(deps.db, built.root, {
      topologyId: topology.id, topologyType: typeof spec.type === 'string' ? spec.type : null, schedule: schedule ?? null,
    });
    counts = saved.counts;
    count = saved.saved.length;
    errors.push(...saved.notes);
    mark('save');
    for (const step of deps.linkSteps) {
      try {
        const r = await step.run(deps.db, topology.id, saved.saved, deps.log);
        notes.push(...(r.notes ?? []).map((n) => `${step.name}: ${n}`));
      } catch (err) {
        errors.push(`${step.name}: ${message(err)}`);
      }
      mark(`links.${step.name}`);
    }
    errors.push(...await applyExpressions(deps.db, topology.id));
    mark('expressions');
    const root = saved.saved[0];
    if (root) {
      const { rows } = await deps.db.query<{ status: string }>('SELECT status FROM components WHERE id = $1', [root.id]);
      rootStatus = rows[0]?.status ?? null;
      if (wantsPush(spec.push)) {
        // as the reference: after the save, the whole tree to the push location; a failure is a line, not the run's end
        try {
          if (!deps.push) throw new Error('push is not available');
          const body = await pushBody(deps.db, root.id);
          await deps.push(spec.push, body, {
            namespace: topology.namespace, topologyId: topology.id, timeoutMs: deps.lookupTimeoutMs ?? DEFAULT_LOOKUP_TIMEOUT_MS, signal: deps.signal,
          });
        } catch (err) {
          errors.push(`error pushing topology: ${message(err)}`);
        }
        mark('push');
      }
    }
  } catch (err) {
    failed = true;
    errors.push(message(err));
    deps.log.warn({ err: message(err), topology: topology.id }, 'topology: run failed');
  }
  const status = failed ? 'FAILED' : errors.length ? 'WARNING' : 'SUCCESS';
  const details = { errors: errors.slice(0, MAX_ERRORS), notes: notes.slice(0, MAX_ERRORS), summary: counts, timings };
  let id: string | null = null;
  try {
    await job.finish({ status, successCount: count, errorCount: errors.length, details });
    const { rows } = await deps.db.query<{ id: string }>(
      `SELECT id FROM job_history WHERE resource_type = 'topology' AND resource_id = $1 AND name = 'TopologyRun'
         AND time_start = $2 ORDER BY created_at DESC LIMIT 1`, [topology.id, job.start]);
    id = rows[0]?.id ?? null;
  } catch (err) {
    deps.log.warn({ err: message(err), topology: topology.id }, 'topology: could not record a run');
  }
  await writeTopologyStatus(deps, topology.id, { status, rootStatus, errors, finishedAt: new Date() });
  return { job_history_id: id, status, count, errors: details.errors, counts, rootStatus, timings };
}
