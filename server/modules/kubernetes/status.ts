import { isDeepStrictEqual } from 'node:util';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import type pg from 'pg';
import type { KindDef } from './kinds.js';
import { errorText, keyOf, statusOf, type KubeObject } from './objects.js';
import { canaryHealth, type CanaryCheckHealth } from './store.js';
import { playbookCrStatus } from '../playbooks/cr-status.js';
import { notificationCrStatus } from '../notifications/cr/status.js';

export interface StatusWriterOptions {
  kc: KubeConfig;
  db: pg.Pool;
  isLeader(): boolean;
  /** The informers' latest copy of an object (its current status is compared before writing). */
  cached(kind: string, namespace: string, name: string): KubeObject | undefined;
  /** Least time between two status writes of one object (its first write is immediate). */
  minIntervalMs?: number;
  /** How often canary health is re-read and dirty objects are written. */
  tickMs?: number;
  log: { warn(obj: object, msg: string): void; debug(obj: object, msg: string): void };
}

interface Target {
  kind: KindDef;
  namespace: string;
  name: string;
  rowId: string | null;
  error: string | null;
}

type Status = Record<string, unknown>;

/** "12/12 (100.0%)", as canary-checker writes uptime1h. */
function uptimeText(passed: number, total: number): string {
  return `${passed}/${total} (${total ? ((passed / total) * 100).toFixed(1) : '0.0'}%)`;
}

/** A Go-style duration of milliseconds, as canary-checker writes latency1h ("125ms", "1.5s"). */
function latencyText(ms: number | null): string | undefined {
  if (ms === null || !Number.isFinite(ms)) return undefined;
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}s`;
}

/** The first message plus "(N more)", as the reference joins several checks' messages. */
function firstOf(values: Array<string | null>): string | undefined {
  const v = values.filter((x): x is string => !!x);
  if (!v.length) return undefined;
  return v.length > 1 ? `${v[0].slice(0, 500)} (${v.length - 1} more)` : v[0].slice(0, 500);
}

/** True when every field of `want` already has that value in `have` (a null in `want` means absent). */
function alreadyThere(have: Status | undefined, want: Status): boolean {
  const h = have ?? {};
  return Object.entries(want).every(([k, v]) => {
    if (v === null || v === undefined) return h[k] === undefined || h[k] === null;
    return isDeepStrictEqual(h[k], v); // key order aside: the API server may re-order object keys
  });
}

/**
 * Writes CR status back through the status subresource (a merge patch of the fields the console owns), on the
 * leader only: every kind gets observedGeneration, persistedID and its validation outcome (`status: Invalid` with
 * `errorMessage`); a Canary also gets its health, as canary-checker reports it (status Passed/Failed, lastCheck,
 * lastTransitionedTime, uptime1h, latency1h, message, errorMessage, checks, checkStatus).
 *
 * Writes are throttled: at most one per object per `minIntervalMs`, and only when the status differs from what
 * the informer last saw, so a status write (which changes the object's resourceVersion and comes back as an
 * update event) never loops.
 */
export class StatusWriter {
  private readonly api: CustomObjectsApi;
  private readonly targets = new Map<string, Target>();
  private readonly dirty = new Set<string>();
  /** When each object's status was last computed (and written if it differed). */
  private readonly lastEval = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly minIntervalMs: number;

  constructor(private readonly opts: StatusWriterOptions) {
    this.api = opts.kc.makeApiClient(CustomObjectsApi);
    this.minIntervalMs = opts.minIntervalMs ?? 10_000;
  }

  start(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.tick().finally(() => (this.running = null));
    }, this.opts.tickMs ?? 2_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    // a status write in flight to an unreachable API server must not hold up the shutdown
    await Promise.race([this.running?.catch(() => undefined), new Promise((r) => setTimeout(r, 3_000).unref())]);
  }

  /** Remembers an object after it was reconciled; its status is (re)computed on the next tick. */
  reconciled(kind: KindDef, obj: KubeObject, outcome: { rowId: string | null; error: string | null }): void {
    const key = `${kind.kind}:${keyOf(obj.metadata.namespace, obj.metadata.name)}`;
    this.targets.set(key, { kind, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '', ...outcome });
    this.dirty.add(key);
  }

  /**
   * Takes every live CR the database knows as a target: after this replica becomes the leader, the objects already
   * reconciled by the previous one still get their status kept up to date.
   */
  async seed(kinds: readonly KindDef[]): Promise<void> {
    const { rows } = await this.opts.db.query<{ kind: string; namespace: string; name: string; row_id: string | null; last_error: string | null }>(
      'SELECT kind, namespace, name, row_id, last_error FROM kubernetes_objects WHERE deleted_at IS NULL',
    );
    for (const r of rows) {
      const kind = kinds.find((k) => k.kind === r.kind);
      if (!kind) continue;
      const key = `${kind.kind}:${keyOf(r.namespace, r.name)}`;
      if (this.targets.has(key)) continue;
      this.targets.set(key, { kind, namespace: r.namespace, name: r.name, rowId: r.row_id, error: r.last_error });
      this.dirty.add(key);
    }
  }

  private async tick(): Promise<void> {
    if (!this.opts.isLeader()) return;
    const now = Date.now();
    const due: Array<{ key: string; t: Target; obj: KubeObject }> = [];
    for (const [key, t] of this.targets) {
      const obj = this.opts.cached(t.kind.kind, t.namespace, t.name);
      if (!obj) {
        this.targets.delete(key);
        this.dirty.delete(key);
        this.lastEval.delete(key);
        continue;
      }
      // canaries are re-read every interval (new results), other kinds only after a reconcile
      if (t.kind.table !== 'canaries' && !this.dirty.has(key)) continue;
      if (now - (this.lastEval.get(key) ?? 0) < this.minIntervalMs) continue;
      this.lastEval.set(key, now);
      due.push({ key, t, obj });
    }
    if (!due.length) return;
    // the health of every due canary in one query
    let health: Map<string, CanaryCheckHealth[]>;
    try {
      const ids = due.filter((d) => d.t.kind.table === 'canaries' && d.t.rowId && !d.t.error).map((d) => d.t.rowId!);
      health = ids.length ? await canaryHealth(this.opts.db, ids) : new Map();
    } catch (err) {
      for (const d of due) this.lastEval.delete(d.key); // try again next tick
      this.opts.log.debug({ err: errorText(err) }, 'kubernetes: could not read canary health for status');
      return;
    }
    for (const { key, t, obj } of due) {
      try {
        const want = this.desired(t, obj, t.rowId ? health.get(t.rowId) ?? [] : []);
        this.dirty.delete(key);
        if (alreadyThere(obj.status, want)) continue;
        await this.api.patchNamespacedCustomObjectStatus(
          { group: t.kind.group, version: t.kind.version, plural: t.kind.plural, namespace: t.namespace, name: t.name, body: { status: want } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
      } catch (err) {
        if (statusOf(err) === 404) {
          this.targets.delete(key); // gone meanwhile; its delete event follows
          continue;
        }
        this.dirty.add(key);
        this.opts.log.debug({ err: errorText(err), key }, 'kubernetes: status write failed, will retry');
      }
    }
  }

  private desired(t: Target, obj: KubeObject, checks: CanaryCheckHealth[]): Status {
    // a Playbook reports a Ready condition, as the reference's controller (playbooks/cr-status.ts)
    if (t.kind.kind === 'Playbook') return playbookCrStatus(t, obj.metadata.generation ?? null, obj.status);
    // Notification and NotificationSilence: the same Ready condition (notifications/cr/status.ts); the send counts
    // are the notifications module's own leader writer
    if (t.kind.table === 'notifications' || t.kind.table === 'notification_silences') {
      return notificationCrStatus(t.kind.kind, t, obj.metadata.generation ?? null, obj.status);
    }
    const base: Status = { observedGeneration: obj.metadata.generation ?? null };
    if (t.error) {
      return { ...base, status: 'Invalid', message: 'the spec did not validate', errorMessage: t.error.slice(0, 2000) };
    }
    base.persistedID = t.rowId;
    // a valid ScrapeConfig's errorMessage is its last run's (catalog/engine/cr-status.ts), not the validation's
    if (t.kind.table === 'config_scrapers') return { ...base, status: 'Ready', message: null };
    // a valid Topology's status is its root's health and its errorMessage its last run's (topology/runner/cr-status.ts)
    if (t.kind.table === 'topologies') return { ...base, persistentID: t.rowId, message: null };
    if (t.kind.table !== 'canaries') return { ...base, status: 'Ready', message: null, errorMessage: null };
    if (!t.rowId) return base;
    const withResult = checks.filter((c) => c.last_runtime);
    const passed = checks.reduce((n, c) => n + c.passed, 0);
    const total = checks.reduce((n, c) => n + c.total, 0);
    const p95s = checks.map((c) => c.p95).filter((x): x is number => x !== null);
    const max = (xs: Array<string | null>) => xs.filter((x): x is string => !!x).sort().at(-1) ?? null;
    const out: Status = {
      ...base,
      checks: Object.fromEntries(checks.map((c) => [c.name, c.id])),
      checkStatus: Object.fromEntries(withResult.map((c) => [c.id, {
        lastCheck: c.last_runtime, lastTransitionedTime: c.last_transition_time ?? undefined,
        message: c.message ?? undefined, errorMessage: c.error ?? undefined,
        uptime1h: uptimeText(c.passed, c.total), latency1h: latencyText(c.p95),
      }])),
      errorMessage: null,
    };
    if (withResult.length) {
      const failed = withResult.some((c) => c.status === 'unhealthy');
      Object.assign(out, {
        status: failed ? 'Failed' : 'Passed',
        lastCheck: max(withResult.map((c) => c.last_runtime)),
        lastTransitionedTime: max(withResult.map((c) => c.last_transition_time)),
        uptime1h: uptimeText(passed, total),
        latency1h: latencyText(p95s.length ? Math.max(...p95s) : null) ?? null,
        message: firstOf(withResult.map((c) => c.message)) ?? null,
        errorMessage: firstOf(withResult.map((c) => c.error)) ?? null,
      });
    } else {
      out.status = null;
    }
    return JSON.parse(JSON.stringify(out)); // drops undefined fields, as the API server stores them
  }
}
