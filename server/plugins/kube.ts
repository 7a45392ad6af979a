import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Config } from '../config.js';
import { KUBERNETES_CRD_SOURCE, type KubernetesStatus } from '../contracts/kubernetes.js';
import { canaryEdits, crEdits, sourceLinkOf, type CanaryEdits } from '../modules/kubernetes/canary-edits.js';
import { SETTINGS_TABLES, settingsWriter } from '../modules/kubernetes/settings-writer.js';
import { loadCluster, type ClusterConnection } from '../modules/kubernetes/cluster.js';
import { KINDS, type KindDef } from '../modules/kubernetes/kinds.js';
import { LeaseElector, SoleLeader, type Leadership } from '../modules/kubernetes/leader.js';
import { StatusWriter } from '../modules/kubernetes/status.js';
import { countLive, invalidObjects } from '../modules/kubernetes/store.js';
import { KubeSync } from '../modules/kubernetes/sync.js';
import { kubeKeyRefReader, ValueFromResolver } from '../lib/value-from.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether this replica leads (runs the schedulers and writes what the informers see). */
    leadership: Leadership;
    /** The Kubernetes side of the console: connection, informers, status. */
    kube: KubeRuntime;
  }
}

export interface KubeRuntime {
  cluster: ClusterConnection | null;
  sync: KubeSync | null;
  status(): Promise<KubernetesStatus>;
  canaries: CanaryEdits;
  /** Resolves `valueFrom` Secrets and ConfigMaps in check specs (refuses them all when there is no cluster). */
  valueFrom: ValueFromResolver;
}

export interface KubePluginOptions {
  config: Config;
  /** Overrides for tests: informer and election timings. */
  timings?: {
    resyncMs?: number; statusTickMs?: number; statusMinIntervalMs?: number; leaseSeconds?: number; renewMs?: number;
    backoffMs?: number; maxBackoffMs?: number;
  };
}

/**
 * The kinds each mode watches. console: all of them. check-runner (health only): Canary, so Canary CRs run through
 * its health runner. agent (runs checks and scrapers in its own cluster): Canary and ScrapeConfig.
 */
function kindsFor(mode: Config['MODE']): readonly KindDef[] {
  if (mode === 'check-runner') return KINDS.filter((k) => k.kind === 'Canary');
  if (mode === 'agent') return KINDS.filter((k) => k.kind === 'Canary' || k.kind === 'ScrapeConfig');
  return KINDS;
}

/**
 * Kubernetes: the cluster connection (KUBECONFIG or in-cluster), the leader election (`app.leadership`), the informers
 * that reconcile custom resources into the database (leader only), the status write-back, and the console edits of
 * CR-sourced canaries (used by the health service). Without a connection the single process is the leader and nothing else starts.
 *
 * Register it before the health routes: they read `app.leadership` to run the scheduler on the leader only, and the
 * canary routes get the CR hooks below as they are registered.
 */
export const kubePlugin = fp<KubePluginOptions>(async (app, opts) => {
  const { config } = opts;
  const t = opts.timings ?? {};
  const cluster = loadCluster(config);
  const log = app.log.child({ module: 'kubernetes' });
  const elector = cluster ? new LeaseElector(cluster, { log, leaseSeconds: t.leaseSeconds, renewMs: t.renewMs }) : null;
  const leadership: Leadership = elector ?? new SoleLeader();
  const kinds = kindsFor(config.MODE);

  let sync: KubeSync | null = null;
  let statusWriter: StatusWriter | null = null;
  if (cluster) {
    const cached = (kind: string, namespace: string, name: string) => sync?.cached(kind, namespace, name);
    statusWriter = new StatusWriter({
      kc: cluster.kc, db: app.db, isLeader: () => leadership.isLeader(), cached, log,
      tickMs: t.statusTickMs, minIntervalMs: t.statusMinIntervalMs,
    });
    const writer = statusWriter;
    sync = new KubeSync({
      db: app.db, cluster, log, kinds, isLeader: () => leadership.isLeader(), resyncMs: t.resyncMs,
      backoffMs: t.backoffMs, maxBackoffMs: t.maxBackoffMs,
      onReconciled: (kind, obj, outcome) => writer.reconciled(kind, obj, outcome),
    });
  }

  const editDeps = {
    db: app.db, cluster, cached: (k: string, ns: string, n: string) => sync?.cached(k, ns, n),
    editedSince: (k: string, ns: string, n: string, rv: string) => sync?.editedSince(k, ns, n, rv),
  };
  const edits = crEdits(editDeps);
  const canaries = canaryEdits(editDeps, edits);
  // /api/db writes of the settings tables: UI rows, and CR-sourced ones edited in the cluster as the caller
  if (app.hasDecorator('relationWriters')) {
    for (const table of Object.keys(SETTINGS_TABLES)) app.relationWriters.register(table, settingsWriter(app.db, table, edits));
  }
  const valueFrom = new ValueFromResolver({
    reader: cluster ? kubeKeyRefReader(cluster.kc) : null,
    unavailable: `valueFrom needs a Kubernetes cluster connection (${config.KUBERNETES === 'off' ? 'KUBERNETES=off' : 'no KUBECONFIG or in-cluster credentials'})`,
    ttlMs: config.VALUE_FROM_CACHE_SECONDS * 1000,
  });

  async function status(): Promise<KubernetesStatus> {
    const counts = cluster ? await countLive(app.db) : new Map<string, number>();
    const watcherError = sync?.kinds.flatMap((k) => k.watchers).find((w) => w.lastError)?.lastError ?? null;
    return {
      connected: !!sync && sync.kinds.some((k) => k.watchers.some((w) => w.watching)),
      source: cluster?.source ?? null,
      server: cluster?.server ?? null,
      leader: elector ? { identity: elector.identity, isLeader: elector.isLeader(), holder: elector.holder } : null,
      kinds: (sync?.kinds ?? []).map((k) => {
        const ws = k.watchers;
        const times = ws.map((w) => w.lastSyncAt?.getTime() ?? 0);
        return {
          kind: k.kind.kind, group: k.kind.group, version: k.kind.version, plural: k.kind.plural,
          watching: ws.every((w) => w.watching),
          objects: counts.get(k.kind.kind) ?? 0,
          lastSyncAt: times.every((x) => x > 0) ? new Date(Math.min(...times)).toISOString() : null,
          lastError: ws.find((w) => w.lastError)?.lastError ?? null,
        };
      }),
      lastError: elector?.lastError ?? watcherError,
      invalid: cluster ? await invalidObjects(app.db) : [],
    };
  }

  app.decorate('leadership', leadership);
  app.decorate('kube', { cluster, sync, status, canaries, valueFrom });

  // The settings page reads this; any signed-in user may (it holds no secret: the server URL, kinds, errors).
  if (config.MODE === 'console') {
    app.get('/api/kubernetes/status', { config: { access: 'authenticated' } }, () => status());
  }

  // The canary detail says where a canary comes from. Edits of CR-sourced canaries are the health service's (it gets
  // `app.kube.canaries` as its crEdits, so /api/canary and /api/db/canaries share them); this hook only adds the
  // source link to the health module's own GET, so that module needs no Kubernetes code.
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.url !== '/api/canary/:id') return;
    const methods = ([] as string[]).concat(route.method);
    const add = (name: 'preSerialization', fn: unknown) => {
      const existing = route[name];
      (route as unknown as Record<string, unknown>)[name] = existing ? [...([] as unknown[]).concat(existing), fn] : [fn];
    };
    if (methods.includes('GET')) {
      add('preSerialization', async (_req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        // error bodies pass through untouched
        if (reply.statusCode >= 400 || !payload || typeof payload !== 'object') return payload;
        const p = payload as { id?: string; source?: string | null };
        if (typeof p.id !== 'string') return payload;
        // only CR-sourced rows have a kubernetes_objects row to look up
        if (p.source !== KUBERNETES_CRD_SOURCE) return { ...p, ...sourceLinkOf(p.source ?? null, undefined) };
        return { ...p, ...(await canaries.link(p.id, p.source)) };
      });
    }
  });

  // Starting: election first (a follower's informers still fill their caches), then the informers and the status
  // writer. Gaining the lead compares the whole database with the caches and re-reads which statuses to keep.
  let off = () => {};
  app.addHook('onReady', async () => {
    if (!cluster || !sync || !elector || !statusWriter) return;
    const s = sync;
    const w = statusWriter;
    off = elector.onChange((leads) => {
      if (!leads) return;
      void s.resync();
      w.seed(kinds).catch((err) => log.warn({ err }, 'kubernetes: could not read the objects to keep the status of'));
    });
    elector.start();
    s.start();
    w.start();
    log.info({ server: cluster.server, source: cluster.source, kinds: kinds.map((k) => k.kind), namespaces: cluster.namespaces },
      'kubernetes: watching custom resources');
  });
  // Closing: no watch or timer survives app.close(), and the Lease is released so another replica leads at once.
  app.addHook('onClose', async () => {
    off();
    await sync?.stop();
    await statusWriter?.stop();
    await elector?.stop();
  });
}, { name: 'kube', dependencies: ['db'] });
