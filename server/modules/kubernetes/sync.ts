import type pg from 'pg';
import { notifyChange } from '../../lib/events.js';
import { inTransaction } from '../../lib/tx.js';
import { validateCanarySpec, type CheckDef } from '../health/spec.js';
import type { ClusterConnection } from './cluster.js';
import { EditedSince } from './edited-since.js';
import { KINDS, type KindDef } from './kinds.js';
import { errorText, gitOpsOf, keyOf, newerVersion, rowIdOf, splitKey, type KubeObject } from './objects.js';
import {
  keptAnnotations, liveObjectByKey, liveObjects, markLedgerDeleted, upsertLedger, WRITERS,
} from './store.js';
import { KindWatcher, type WatcherOptions } from './watcher.js';
import { webhookConflict } from '../playbooks/spec.js';

export interface SyncLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface SyncOptions extends WatcherOptions {
  db: pg.Pool;
  cluster: ClusterConnection;
  log: SyncLog;
  /** Database writes happen only while this is true (the Lease holder). */
  isLeader(): boolean;
  /** How often the database is compared with the informers' caches (a missed event converges). */
  resyncMs?: number;
  /** Told after a CR was reconciled (or found invalid), so its status can be written back. */
  onReconciled?(kind: KindDef, obj: KubeObject, outcome: { rowId: string | null; error: string | null }): void;
  kinds?: readonly KindDef[];
}

/** Zod issues as one line: `path: message; path: message`. */
function issuesText(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues.slice(0, 20).map((i) => (i.path.length ? `spec.${i.path.map(String).join('.')}: ${i.message}` : `spec: ${i.message}`)).join('; ');
}

/**
 * One kind's reconciler: its informers (one cluster-wide, or one per watched namespace), and a work queue of
 * `namespace/name` keys. Events only mark keys dirty; a single worker per kind reconciles each key from the
 * informer's cache (the latest state the API server described), so a burst of events on one object costs one write
 * and an older event can never overwrite a newer state.
 */
class KindSync {
  readonly watchers: KindWatcher[];
  private readonly dirty = new Set<string>();
  private draining: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  stopped = false;
  /** Since which resourceVersion each CR holds its spec, labels and annotations (console edits ask). */
  readonly editedSince = new EditedSince();

  constructor(readonly kind: KindDef, private readonly opts: SyncOptions) {
    const namespaces = opts.cluster.namespaces.length ? opts.cluster.namespaces : [null];
    this.watchers = namespaces.map((ns) => new KindWatcher(opts.cluster.kc, kind, ns, {
      log: opts.log,
      onKey: (namespace, name) => this.mark(keyOf(namespace, name)),
      onListed: () => void this.resync(),
      onObject: (phase, obj) => this.editedSince.seen(phase, obj),
    }, opts));
  }

  start(): void {
    this.stopped = false;
    for (const w of this.watchers) w.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await Promise.all(this.watchers.map((w) => w.stop()));
    await this.draining?.catch(() => undefined);
  }

  get synced(): boolean {
    return this.watchers.every((w) => w.synced);
  }

  private cached(namespace: string, name: string): KubeObject | undefined {
    for (const w of this.watchers) {
      if (w.namespace === null || w.namespace === namespace) {
        const o = w.get(namespace, name);
        if (o) return o;
      }
    }
    return undefined;
  }

  /** Marks a key for reconciliation and wakes the worker (only the leader drains). */
  mark(key: string): void {
    this.dirty.add(key);
    this.kick();
  }

  kick(): void {
    if (this.draining || this.stopped || !this.opts.isLeader() || this.retryTimer) return;
    this.draining = this.drain().finally(() => {
      this.draining = null;
      if (this.dirty.size && !this.retryTimer) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.dirty.size && !this.stopped && this.opts.isLeader()) {
      const key = this.dirty.values().next().value as string;
      this.dirty.delete(key);
      try {
        await this.reconcile(key);
        this.failures = 0;
      } catch (err) {
        // the database refused (down, or a bug): keep the key and retry after a back-off; nothing is lost
        this.dirty.add(key);
        this.failures++;
        const delay = Math.min(30_000, 250 * 2 ** Math.min(this.failures, 7));
        this.opts.log.warn({ err: errorText(err), kind: this.kind.kind, key, delay }, 'kubernetes: reconcile failed, will retry');
        this.retryTimer = setTimeout(() => {
          this.retryTimer = null;
          this.kick();
        }, delay);
        this.retryTimer.unref();
        return;
      }
    }
  }

  /**
   * Compares the database with the informers' caches and marks every key that differs: a row whose CR is gone (a
   * delete missed while the console was down), a CR unknown to the database or at another version or uid. Runs after
   * every list, periodically, and when this replica becomes the leader. Never before the first list: an empty cache
   * would read as "everything was deleted".
   */
  async resync(): Promise<void> {
    if (this.stopped || !this.opts.isLeader()) return;
    this.kick(); // keys marked meanwhile (while following, or since an error) need no full cache
    if (!this.synced) return;
    try {
      const live = await liveObjects(this.opts.db, this.kind.kind);
      const seen = new Set<string>();
      for (const row of live) {
        const key = keyOf(row.namespace, row.name);
        seen.add(key);
        const o = this.cached(row.namespace, row.name);
        if (!o || o.metadata.uid !== row.uid || o.metadata.resourceVersion !== row.resource_version || row.last_error) this.dirty.add(key);
      }
      for (const w of this.watchers) {
        for (const o of w.list()) {
          const key = keyOf(o.metadata.namespace, o.metadata.name);
          if (!seen.has(key)) this.dirty.add(key);
        }
      }
      this.kick();
    } catch (err) {
      this.opts.log.warn({ err: errorText(err), kind: this.kind.kind }, 'kubernetes: resync failed');
    }
  }

  /** Makes the database match the cached state of one key. */
  private async reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const obj = this.cached(namespace, name);
    // an object being deleted (deletionTimestamp, finalizers pending) is gone as far as the console is concerned
    if (!obj || obj.metadata.deletionTimestamp || !obj.metadata.uid) {
      await this.remove(namespace, name);
      return;
    }
    const outcome = await this.upsert(obj);
    if (outcome) this.opts.onReconciled?.(this.kind, obj, outcome);
  }

  private async remove(namespace: string, name: string): Promise<void> {
    const writer = WRITERS[this.kind.table];
    await inTransaction(this.opts.db, async (c) => {
      const live = await liveObjectByKey(c, this.kind.kind, namespace, name);
      if (!live) return;
      if (live.row_id) await writer.softDelete(c, live.row_id);
      await markLedgerDeleted(c, live.uid, this.opts.cluster.identity);
      await notifyChange(c, { relation: this.kind.table, ids: live.row_id ? [live.row_id] : [] });
    });
  }

  /** Returns what happened, or null when the database already had this version. */
  private async upsert(obj: KubeObject): Promise<{ rowId: string | null; error: string | null } | null> {
    const m = obj.metadata;
    const namespace = m.namespace ?? '';
    const name = m.name ?? '';
    const uid = m.uid!;
    const rowId = rowIdOf(uid);
    const writer = WRITERS[this.kind.table];
    const spec = (obj.spec && typeof obj.spec === 'object' && !Array.isArray(obj.spec) ? obj.spec : {}) as Record<string, unknown>;
    const gitops = gitOpsOf(m);

    // Validation first, outside the transaction (pure). A CR that fails keeps its last valid row (a canary keeps
    // running as it was) and reports the error on its status and in kubernetes_objects.
    let error: string | null = null;
    let checks: CheckDef[] | undefined;
    // anything thrown while validating is this CR's problem, not a reason to retry it forever
    try {
      const parsed = this.kind.spec.safeParse(spec);
      if (!parsed.success) error = issuesText(parsed.error.issues);
      else if (this.kind.table === 'canaries') checks = validateCanarySpec(spec).checks;
    } catch (err) {
      error = errorText(err);
    }
    // checks that need the database (a Notification's person or team), outside the transaction; a database that
    // refuses throws, and the key is retried
    if (!error && this.kind.check) error = await this.kind.check(this.opts.db, spec, { namespace, name });

    return inTransaction(this.opts.db, async (c) => {
      const live = await liveObjectByKey(c, this.kind.kind, namespace, name);
      if (live && live.uid !== uid) {
        // the same name with another uid: the CR was deleted and created again while a delete event was missed
        if (live.row_id) await writer.softDelete(c, live.row_id);
        await markLedgerDeleted(c, live.uid, this.opts.cluster.identity);
      } else if (live) {
        // the same version again: nothing to do, unless it failed for a reason other than its spec (a name conflict
        // with a console-made row), which a later attempt may get past
        if (live.resource_version === (m.resourceVersion ?? null) && (!live.last_error || error)) return null;
        if (newerVersion(live.resource_version, m.resourceVersion) === true) return null; // never go back in time
      }
      const ledger = {
        obj, kind: this.kind, managedBy: gitops?.managedBy ?? null, sourceLink: gitops?.link ?? null, by: this.opts.cluster.identity,
      };
      if (error) {
        await upsertLedger(c, { ...ledger, rowId: null, error });
        await notifyChange(c, { relation: 'kubernetes_objects' });
        return { rowId: live?.uid === uid ? live.row_id : null, error };
      }
      await c.query('SAVEPOINT row_write');
      try {
        await writer.upsert(c, {
          id: rowId, name, namespace, labels: m.labels ?? null, annotations: keptAnnotations(m.annotations), spec, checks,
        });
        await c.query('RELEASE SAVEPOINT row_write');
      } catch (err) {
        // e.g. a console-made row already holds this name (unique per namespace): report it on the CR, keep going
        // A refusal about this row's values (class 22: data exception, 23: integrity, e.g. a console-made row already
        // holds the name) is reported on the CR; anything else (the database down) is retried.
        const code = String((err as { code?: string }).code ?? '');
        if (!/^2[23]/.test(code)) throw err;
        await c.query('ROLLBACK TO SAVEPOINT row_write');
        const msg = code === '23505'
          ? webhookConflict(err, { spec })?.message // a Playbook's webhook path taken by another playbook
            ?? `a ${this.kind.kind} named ${namespace}/${name} already exists in the console (not from Kubernetes)`
          : `the database refused this ${this.kind.kind}: ${errorText(err)}`;
        await upsertLedger(c, { ...ledger, rowId: null, error: msg });
        return { rowId: null, error: msg };
      }
      await upsertLedger(c, { ...ledger, rowId, error: null });
      await notifyChange(c, { relation: this.kind.table, ids: [rowId] });
      return { rowId, error: null };
    });
  }

  pending(): number {
    return this.dirty.size + (this.draining ? 1 : 0);
  }
}

/**
 * The console's informers: every kind of the registry, all namespaces or WATCH_NAMESPACES, reconciled into the
 * database by the leader. Followers keep their caches warm (so a new leader starts from a full cache) and write
 * nothing.
 */
export class KubeSync {
  readonly kinds: KindSync[];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly opts: SyncOptions) {
    this.kinds = (opts.kinds ?? KINDS).map((k) => new KindSync(k, opts));
  }

  start(): void {
    for (const k of this.kinds) k.start();
    const every = this.opts.resyncMs ?? 30_000;
    this.timer = setInterval(() => void this.resync(), every);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.kinds.map((k) => k.stop()));
  }

  /** Compares every kind with the database now (also called when this replica becomes the leader). */
  async resync(): Promise<void> {
    await Promise.all(this.kinds.map((k) => k.resync()));
  }

  /** Keys waiting to be written (0 when the database matches the caches). */
  pending(): number {
    return this.kinds.reduce((n, k) => n + k.pending(), 0);
  }

  /** The cached object of a kind, if the informers know it. */
  cached(kind: string, namespace: string, name: string): KubeObject | undefined {
    const k = this.kinds.find((x) => x.kind.kind === kind);
    for (const w of k?.watchers ?? []) {
      const o = w.get(namespace, name);
      if (o) return o;
    }
    return undefined;
  }

  /** The resourceVersion since which the cached CR at `resourceVersion` holds its spec, labels and annotations. */
  editedSince(kind: string, namespace: string, name: string, resourceVersion: string): string | undefined {
    return this.kinds.find((x) => x.kind.kind === kind)?.editedSince.since(namespace, name, resourceVersion);
  }
}
