import type pg from 'pg';
import type {
  CanaryInput, CanaryPatch, CanaryResponse, CheckDetail, CheckSummary, GraphResponse, HistoryRequest, HistoryResponse,
  PushRequest, PushResponse, RunCheckResponse, SummaryRequest, WebhookResponse,
} from '../../contracts/health.js';
import type { Role } from '../../contracts/rbac.js';
import { ApiError, BadRequestError, ConflictError, NotFoundError, UnauthorizedError } from '../../lib/errors.js';
import { notifyChange } from '../../lib/events.js';
import { inTransaction } from '../../lib/tx.js';
import {
  LOCAL_AGENT, checkForRun, ensurePushCanary, findLiveCheck, findWebhookCheck, getCanary, insertCanary, liveChecksOf, lockCanary,
  reconcileChecks, softDeleteCanary, updateCanary, upsertPushedCheck, type CanaryRow, type PushTarget,
} from './queries.js';
import {
  cacheIsFresh, checkExtras, graphFromRaw, graphFromRollups, historyRows, summaryJson, summaryJsonChunks, summaryRows,
  type SummaryRow,
} from './read-queries.js';
import { FleetSummaryCache, type FleetSummaryOptions } from './fleet-summary.js';
import { RETENTION_DEFAULTS } from './retention.js';
import { InvalidSpecError } from '../../lib/checks/lib/result.js';
import { resultFromWebhook, webhookTokenMatches, type WebhookCheckSpec, type WebhookPayload } from '../../lib/checks/webhook.js';
import { recordOutcome, recordPushed, runAndRecord, type Outcome, type RunnableCheck } from './runner.js';
import type { ConnectionResolver } from './connections.js';
import { hasValueFrom, ValueFromResolver } from '../../lib/value-from.js';
import { SpecError, validateCanarySpec } from './spec.js';

export interface HealthServiceDeps {
  db: pg.Pool;
  runnerName?: string;
  /** The scheduler of this replica, when it runs one: told to reload after changes, asked for next run times. */
  scheduler?: { reload(): Promise<void>; nextRunOf(canaryId: string): number | null };
  /** Results of Run Now, for live updates. */
  onResults?: (checkIds: string[]) => void;
  /** Every outcome of Run Now, webhook and push once stored (custom check metrics: check-metrics.ts). */
  onOutcome?: (check: RunnableCheck, outcome: Outcome) => void;
  /** How long the ready whole-fleet summary may lag behind results (tests shorten it). */
  fleetSummary?: FleetSummaryOptions;
  /** Resolves `valueFrom` in check specs for Run Now (the scheduler has its own handle on it). */
  valueFrom?: ValueFromResolver;
  /** Merges `connection://` references in check specs for Run Now. */
  connections?: ConnectionResolver;
  /** Where a webhook token that cannot be read is reported (never with a value). */
  log?: { warn(obj: object, msg: string): void };
  /**
   * Edits of canaries that come from custom resources (the kube plugin's): for such a canary an edit patches the CR
   * and a delete deletes it, as the caller's cluster identity; undefined / false for any other canary.
   */
  crEdits?: {
    edit(id: string, change: CanaryChange, version: string | undefined, roles: readonly Role[]): Promise<CanaryResponse | undefined>;
    remove(id: string, roles: readonly Role[]): Promise<boolean>;
  };
}

/** The fields of a canary an edit sets (absent ones keep their value). */
export interface CanaryChange {
  name?: string;
  namespace?: string;
  labels?: Record<string, string> | null;
  spec?: Record<string, unknown>;
}

/** Who edits: the roles act in the cluster for CR-sourced canaries; version is the CR resourceVersion they saw. */
export interface EditContext {
  roles: readonly Role[];
  version?: string;
}

/** For a webhook token from a Secret when there is no resolver: no cluster to read from. */
const NO_CLUSTER = new ValueFromResolver({ reader: null });

/** A summary answer: JSON bytes or text, and for the whole fleet a gzip copy of the same bytes. */
export interface SummaryBody {
  json: Buffer | string;
  gzip?: Buffer;
}

const UNIT_MS: Record<string, number> = {
  ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, mo: 30 * 86_400_000, y: 365 * 86_400_000,
};

/** `15m`, `1h`, `7d`, `1w`, `1mo`, `1y` to ms. */
export function windowMs(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w|mo|y)$/.exec(text.trim());
  if (!m) throw new BadRequestError(`invalid duration "${text.slice(0, 40)}" (expected e.g. 15m, 1h, 7d)`);
  return Number(m[1]) * UNIT_MS[m[2]];
}

/** A duration ago (`1h`) or an RFC 3339 time. */
function pointInTime(text: string, now: number): Date {
  if (/^\d+(\.\d+)?(ms|s|m|h|d|w|mo|y)$/.test(text.trim())) return new Date(now - windowMs(text));
  const t = Date.parse(text);
  if (Number.isNaN(t)) throw new BadRequestError(`invalid time "${text.slice(0, 40)}" (a duration such as 1h, or RFC 3339)`);
  return new Date(t);
}

/** Graph bucket width by range, as the reference: <=2h 1m, <=24h 15m, <=7d 1h, else 4h. */
export function bucketSecondsFor(rangeMs: number): number {
  if (rangeMs <= 2 * 3_600_000) return 60;
  if (rangeMs <= 24 * 3_600_000) return 900;
  if (rangeMs <= 7 * 86_400_000) return 3_600;
  return 14_400;
}

function toSummary(r: SummaryRow): CheckSummary {
  return {
    id: r.id, canary_id: r.canary_id, canary_name: r.canary_name, canary_namespace: r.canary_namespace,
    agent_id: r.agent_id, name: r.name, type: r.type, namespace: r.namespace, description: r.description, icon: r.icon,
    labels: r.labels, status: r.status, severity: r.severity, owner: r.owner,
    uptime: { passed: r.passed, failed: r.failed, last_pass: r.last_pass, last_fail: r.last_fail },
    latency: { p95: r.p95, p97: r.p97, p99: r.p99, avg: r.avg, rolling1h: 0 },
    last_transition_time: r.last_transition_time, last_runtime: r.last_runtime, next_runtime: r.next_runtime,
    created_at: r.created_at, updated_at: r.updated_at, deleted_at: r.deleted_at, silenced_at: r.silenced_at,
  };
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function runnable(t: PushTarget): RunnableCheck {
  return {
    id: t.id, canaryId: t.canary_id, type: t.type, name: t.name, spec: t.spec ?? {}, severity: t.severity, labels: t.labels,
  };
}

function normalise(input: CanaryInput) {
  if ('metadata' in input) {
    return { name: input.metadata.name, namespace: input.metadata.namespace, labels: input.metadata.labels ?? null, spec: input.spec };
  }
  return { name: input.name, namespace: input.namespace, labels: input.labels ?? null, spec: input.spec };
}

/** Validates a spec or refuses it with 400 and every reason, by path. */
function validSpec(spec: unknown) {
  try {
    return validateCanarySpec(spec);
  } catch (err) {
    if (err instanceof SpecError) {
      throw new BadRequestError(`invalid canary spec: ${err.message}`, Object.fromEntries(err.problems.map((p) => [p.path || 'spec', p.message])));
    }
    throw err;
  }
}

/** Health: canary CRUD, Run Now, summary, history, graph and check detail. */
export function createHealthService(deps: HealthServiceDeps) {
  const { db } = deps;
  const runnerName = deps.runnerName ?? 'local';
  const reload = () => deps.scheduler?.reload().catch(() => undefined);

  /**
   * The SummaryResponse body as JSON text: PostgreSQL builds `checks_summary` in the final shape and its text is
   * spliced into the envelope, so 10,000 rows are never parsed, reshaped or re-serialised in Node.
   */
  async function summaryText(req: SummaryRequest): Promise<string> {
    const t0 = performance.now();
    const window = req.window ?? '1h';
    const ms = windowMs(window);
    // one check is cheap to compute exactly; all of them come from the precomputed stats while those are fresh
    const cached = !req.checkID && (await cacheIsFresh(db, ms));
    const checks = await summaryJson(db, {
      since: new Date(Date.now() - ms), cachedWindowMs: cached ? ms : undefined, checkId: req.checkID, canaryId: req.canaryID, labels: req.labels,
      deleteFrom: req.deleteFrom ? new Date(req.deleteFrom) : undefined,
      sort: req.sortBy === '-name' ? 'desc' : req.sortBy === 'name' ? 'asc' : undefined,
    });
    const duration = Math.round(performance.now() - t0);
    return `{"duration":${duration},"runnerName":${JSON.stringify(runnerName)},"window":${JSON.stringify(window)},"checks_summary":${checks}}`;
  }

  // Whole-fleet answers by `window|sortBy`, as bytes assembled from chunks of the list (summaryJsonChunks);
  // `duration` in them is the time their build took.
  const fleet = new FleetSummaryCache(async (key) => {
    const t0 = performance.now();
    const [window, sortBy] = key.split('|');
    const ms = windowMs(window);
    const parts = await summaryJsonChunks(db, {
      since: new Date(Date.now() - ms), cachedWindowMs: (await cacheIsFresh(db, ms)) ? ms : undefined,
      sort: sortBy === '-name' ? 'desc' : sortBy === 'name' ? 'asc' : undefined,
    });
    const head = `{"duration":${Math.round(performance.now() - t0)},"runnerName":${JSON.stringify(runnerName)},"window":${JSON.stringify(window)},"checks_summary":[`;
    const comma = Buffer.from(',');
    return Buffer.concat([Buffer.from(head), ...parts.flatMap((p, i) => (i ? [comma, Buffer.from(p)] : [Buffer.from(p)])), Buffer.from(']}')]);
  }, deps.fleetSummary);

  async function canaryResponse(row: CanaryRow, checks?: Array<{ id: string; type: string; name: string }>): Promise<CanaryResponse> {
    return { ...row, checks: checks ?? (await liveChecksOf(db, row.id)) };
  }

  /** Writes a canary and its checks in one transaction; live-update events fire on commit. */
  async function save(id: string | null, v: ReturnType<typeof normalise>, createdBy: string | null): Promise<CanaryResponse> {
    const valid = validSpec(v.spec);
    const out = await inTransaction(db, async (c) => {
      let row: CanaryRow;
      if (id === null) {
        row = await insertCanary(c, { ...v, source: 'UI', createdBy });
      } else {
        const current = await lockCanary(c, id);
        if (!current) throw new NotFoundError('canary', id);
        if (current.source && current.source !== 'UI') {
          throw new ConflictError(`canary ${id} is managed by its source (${current.source}); edit it there`);
        }
        row = await updateCanary(c, id, v);
      }
      const checks = await reconcileChecks(c, row.id, row.namespace, valid.checks);
      await notifyChange(c, { relation: 'canaries', ids: [row.id] });
      await notifyChange(c, { relation: 'checks', ids: checks.map((x) => x.id) });
      return { row, checks };
    });
    fleet.invalidate();
    await reload();
    return canaryResponse(out.row, out.checks);
  }

  return {
    async getCanary(id: string): Promise<CanaryResponse> {
      const row = await getCanary(db, id);
      if (!row || row.deleted_at) throw new NotFoundError('canary', id);
      return canaryResponse(row);
    },

    /** Refuses a canary as createCanary would (400 with every reason by path), saving nothing. */
    checkCanary(input: CanaryInput): void {
      validSpec(normalise(input).spec);
    },

    createCanary(input: CanaryInput, createdBy: string | null) {
      return save(null, normalise(input), createdBy);
    },

    /** PUT: the whole canary (a CR-sourced one is patched in the cluster, its labels kept when left out). */
    async updateCanary(id: string, input: CanaryInput, ctx: EditContext) {
      const v = normalise(input);
      const viaCr = await deps.crEdits?.edit(id, { ...v, labels: v.labels ?? undefined }, ctx.version, ctx.roles);
      return viaCr ?? save(id, v, null);
    },

    /** PATCH: the fields given; `spec` replaces the whole spec. */
    async patchCanary(id: string, patch: CanaryPatch, ctx: EditContext) {
      const viaCr = await deps.crEdits?.edit(id, patch, ctx.version, ctx.roles);
      if (viaCr) return viaCr;
      const row = await getCanary(db, id);
      if (!row || row.deleted_at) throw new NotFoundError('canary', id);
      return save(id, {
        name: patch.name ?? row.name, namespace: patch.namespace ?? row.namespace,
        labels: patch.labels ?? row.labels, spec: patch.spec ?? row.spec,
      }, null);
    },

    /** Soft-deletes a canary and its checks; a CR-sourced one is deleted in the cluster (its row follows). */
    async deleteCanary(id: string, ctx: EditContext): Promise<void> {
      if (await deps.crEdits?.remove(id, ctx.roles)) return;
      await inTransaction(db, async (c) => {
        const current = await lockCanary(c, id);
        if (!current) throw new NotFoundError('canary', id);
        await softDeleteCanary(c, id);
        await notifyChange(c, { relation: 'canaries', ids: [id] });
        await notifyChange(c, { relation: 'checks' });
      });
      fleet.invalidate();
      await reload();
    },

    /** Runs one check now (whatever its schedule) and stores the result. */
    async runCheck(id: string): Promise<RunCheckResponse> {
      const check = await checkForRun(db, id);
      if (!check || check.deleted_at) throw new NotFoundError('check', id);
      if (check.agent_id !== LOCAL_AGENT) {
        // the agent runs it and pushes its results: running it here would mix two runners' results
        throw new ConflictError(`check ${check.name} runs on agent ${check.agent_name ?? check.agent_id}; run it there`,
          { agent_id: check.agent_id, agent_name: check.agent_name });
      }
      const next = deps.scheduler?.nextRunOf(check.canary_id);
      const canarySeverity = typeof check.canary_spec.severity === 'string' ? check.canary_spec.severity.toLowerCase() : null;
      const r = await runAndRecord(db, {
        id: check.id, canaryId: check.canary_id, type: check.type, name: check.name, spec: check.spec,
        namespace: check.canary_namespace,
        severity: typeof check.spec.severity === 'string' ? check.spec.severity.toLowerCase() : canarySeverity,
      }, { nextRuntime: next ? new Date(next) : null, valueFrom: deps.valueFrom, connections: deps.connections });
      // someone asked for this result: the list shows it at once
      fleet.invalidate();
      deps.onResults?.([check.id]);
      deps.onOutcome?.({
        id: check.id, canaryId: check.canary_id, type: check.type, name: check.name, spec: check.spec, namespace: check.canary_namespace,
      }, r.outcome);
      const o = r.outcome;
      return {
        id: check.id, name: check.name, start: o.start.toISOString(), pass: o.pass, invalid: o.invalid,
        duration: o.duration, message: o.message, error: o.error, detail: o.detail, status: r.status, transitioned: r.transitioned,
      };
    },

    /**
     * One webhook push: the check (id, or name) must be a live `webhook` check and the token its spec's; the body
     * becomes its result through the shared threshold / test / display steps and is stored like a scheduled run.
     */
    async webhook(idOrName: string, token: string | undefined, payload: WebhookPayload): Promise<WebhookResponse> {
      const target = await findWebhookCheck(db, idOrName, UUID_RE.test(idOrName));
      if (!target) throw new NotFoundError('webhook check', idOrName.slice(0, 100));
      let spec = (target.spec ?? {}) as WebhookCheckSpec;
      if (hasValueFrom(spec.token)) {
        // a token from a Secret, read from the canary's namespace (cached as any valueFrom). The pusher did nothing
        // wrong when it cannot be read, so the answer is 503, and the reason goes to the log only: the route is
        // public, and Secret names are not for anonymous callers.
        try {
          const resolved = await (deps.valueFrom ?? NO_CLUSTER).resolve({ token: spec.token }, target.canary_namespace);
          spec = { ...spec, token: resolved.spec.token as WebhookCheckSpec['token'] };
        } catch (err) {
          deps.log?.warn({ check: target.id, error: err instanceof Error ? err.message : String(err) }, 'health: webhook token could not be read');
          throw new ApiError(503, 'unavailable', 'the webhook check\'s token could not be read; try again later');
        }
      }
      let ok: boolean;
      try {
        ok = webhookTokenMatches(spec, token);
      } catch (err) {
        if (!(err instanceof InvalidSpecError)) throw err;
        ok = false; // a token that cannot be resolved accepts nobody
      }
      if (!ok) throw new UnauthorizedError('invalid webhook token');
      const pushed = runnable(target);
      const r = await recordPushed(db, pushed, resultFromWebhook(spec, payload));
      deps.onOutcome?.(pushed, r.outcome);
      fleet.changed();
      deps.onResults?.([target.id]);
      const o = r.outcome;
      return { id: target.id, status: r.status, pass: o.pass, message: o.message, error: o.error };
    },

    /** POST /api/push: finds or creates the canary and check, then stores the pushed status as given. */
    async push(req: PushRequest, createdBy: string | null): Promise<PushResponse> {
      let target: PushTarget | undefined;
      if (req.id) {
        target = await findLiveCheck(db, req.id);
        if (!target) throw new NotFoundError('check', req.id);
      } else {
        target = await inTransaction(db, async (c) => {
          const canaryId = await ensurePushCanary(c, req.canary_name ?? req.name!, req.namespace, createdBy);
          return upsertPushedCheck(c, {
            canaryId, type: req.type, name: req.name!, namespace: req.namespace, description: req.description,
            icon: req.icon, owner: req.owner, severity: req.severity, labels: req.labels,
          });
        });
      }
      const start = req.time ? new Date(req.time) : new Date();
      const pushed = runnable(target);
      const r = await recordOutcome(db, pushed, {
        pass: req.status, invalid: req.invalid, duration: req.duration, message: req.message, error: req.error,
        detail: req.detail, data: {}, start,
      }, null);
      deps.onOutcome?.(pushed, r.outcome);
      // by name, the check may be new: the list shows it at once
      if (req.id) fleet.changed();
      else fleet.invalidate();
      deps.onResults?.([target.id]);
      return { id: target.id, canary_id: target.canary_id, status: r.status, transitioned: r.transitioned };
    },

    /**
     * GET/POST /api/summary. The whole fleet comes ready (FleetSummaryCache: at most a few seconds behind results);
     * filtered and one-check summaries are computed on demand.
     */
    async summary(req: SummaryRequest): Promise<SummaryBody> {
      windowMs(req.window ?? '1h'); // a bad window is refused before any cache lookup
      if (!req.checkID && !req.canaryID && !req.labels && !req.deleteFrom) return fleet.get(`${req.window ?? '1h'}|${req.sortBy ?? ''}`);
      return { json: await summaryText(req) };
    },

    /** New results (this replica's scheduler, or any replica through live-update events). */
    resultsChanged(): void {
      fleet.changed();
    },

    /** Canaries or checks changed elsewhere (another replica, /api/db). */
    checksChanged(): void {
      fleet.invalidate();
    },

    async history(req: HistoryRequest): Promise<HistoryResponse> {
      const now = Date.now();
      const since = pointInTime(req.start, now);
      const until = req.end ? pointInTime(req.end, now) : undefined;
      if (until && since.getTime() > until.getTime()) throw new BadRequestError('the range starts after it ends');
      return historyRows(db, {
        checkId: req.check, since, until,
        status: req.status === undefined ? undefined : req.status === '1', minDuration: req.duration,
        limit: req.pageSize, offset: (req.page - 1) * req.pageSize,
      });
    },

    async graph(req: { check: string; since?: string; start?: string; until?: string; end?: string }): Promise<GraphResponse> {
      const t0 = performance.now();
      const now = Date.now();
      const from = pointInTime(req.since ?? req.start ?? '1h', now);
      const to = pointInTime(req.until ?? req.end ?? '0s', now);
      if (from.getTime() > to.getTime()) throw new BadRequestError('the range starts after it ends');
      const bucketSeconds = bucketSecondsFor(to.getTime() - from.getTime());
      const raw = from.getTime() >= now - RETENTION_DEFAULTS.rawDays * 86_400_000;
      const { series, stats } = raw
        ? await graphFromRaw(db, req.check, from, to, bucketSeconds)
        : await graphFromRollups(db, req.check, from, to, bucketSeconds);
      return {
        duration: Math.round(performance.now() - t0), runnerName, bucketSeconds,
        status: series.map((b) => ({ time: b.time, duration: b.duration ?? 0, passed: b.passed, failed: b.failed, ...(b.status && { status: true }) })),
        latency: { p95: stats.p95, p97: stats.p97, p99: stats.p99, avg: stats.avg, rolling1h: 0 },
        uptime: { passed: stats.passed, failed: stats.failed },
      };
    },

    async checkDetail(id: string, window = '1h'): Promise<CheckDetail> {
      const rows = await summaryRows(db, { since: new Date(Date.now() - windowMs(window)), checkId: id, deleteFrom: new Date(0) });
      const extras = await checkExtras(db, id);
      if (!rows[0] || !extras) throw new NotFoundError('check', id);
      const summary = toSummary(rows[0]);
      const next = deps.scheduler?.nextRunOf(summary.canary_id);
      return {
        ...summary,
        next_runtime: next ? new Date(next).toISOString() : summary.next_runtime ?? null,
        spec: extras.spec, canary: extras.canary,
        last_status: extras.has_latest
          ? { duration: extras.last_duration, message: extras.last_message, error: extras.last_error }
          : null,
      };
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
