import { CoordinationV1Api, V1MicroTime, type V1Lease } from '@kubernetes/client-node';
import type { ClusterConnection } from './cluster.js';
import { errorText, statusOf, withTimeout } from './objects.js';

/** Who leads: every replica serves HTTP; only the leader runs the schedulers and writes what the informers see. */
export interface Leadership {
  isLeader(): boolean;
  /** Called with the new state on every change; returns an unsubscribe function. */
  onChange(fn: (isLeader: boolean) => void): () => void;
}

export interface LeaderOptions {
  /** How long a Lease stays valid after its last renewal (client-go's default 15 s). */
  leaseSeconds?: number;
  /** How often the holder renews and the others try (client-go's retry period is 2 s; renewal every 5 s suffices). */
  renewMs?: number;
  /** The holder steps down when it could not renew for this long, before the others may take over. */
  renewDeadlineMs?: number;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

class Listeners {
  private readonly fns = new Set<(v: boolean) => void>();
  on(fn: (v: boolean) => void): () => void {
    this.fns.add(fn);
    return () => this.fns.delete(fn);
  }
  emit(v: boolean): void {
    for (const fn of [...this.fns]) {
      try {
        fn(v);
      } catch {
        /* a listener's failure is its own */
      }
    }
  }
}

/** Without Kubernetes the single process leads, always. */
export class SoleLeader implements Leadership {
  isLeader(): boolean {
    return true;
  }
  onChange(): () => void {
    return () => undefined;
  }
}

const timeOf = (t: Date | string | undefined): number => (t ? new Date(t).getTime() : 0);
/** Each Lease request is bounded, so a hung connection cannot stall the election loop past the renew deadline. */
const CALL_TIMEOUT_MS = 4_000;

/**
 * Leader election with a coordination.k8s.io/v1 Lease (POD_NAMESPACE/LEADER_LEASE_NAME, holder POD_NAME), the way
 * client-go's leaderelection does it: the holder renews every `renewMs`; a Lease not renewed for `leaseSeconds`
 * may be taken by anyone, with an update carrying the resourceVersion read (two candidates: one gets 409 and stays
 * a follower). A follower wakes when the current Lease would expire, so a crashed leader is replaced within
 * `leaseSeconds` of its last renewal; a stopping leader releases the Lease (holder cleared) so the next attempt of
 * another replica (within `renewMs`) takes it at once. The holder steps down by itself when it cannot renew within
 * `renewDeadlineMs` (< leaseSeconds), so two replicas never both believe they lead.
 *
 * Expiry is judged on the Lease's renewTime against this replica's clock; cluster nodes keep their clocks in sync
 * (NTP), as client-go's users rely on too.
 */
export class LeaseElector implements Leadership {
  private readonly api: CoordinationV1Api;
  private readonly listeners = new Listeners();
  private leading = false;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private lastRenew = 0;
  private readonly leaseSeconds: number;
  private readonly renewMs: number;
  private readonly renewDeadlineMs: number;
  /** Who holds the Lease as last read (null: nobody), for the status page. */
  holder: string | null = null;
  lastError: string | null = null;

  constructor(private readonly cluster: ClusterConnection, private readonly opts: LeaderOptions) {
    this.api = cluster.kc.makeApiClient(CoordinationV1Api);
    this.leaseSeconds = opts.leaseSeconds ?? 15;
    this.renewMs = opts.renewMs ?? 5_000;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
  }

  get identity(): string {
    return this.cluster.identity;
  }

  /**
   * True while this replica holds the Lease. A holder whose last renewal is older than the renew deadline no longer
   * counts as leader even before its next attempt notices (a process frozen for a while must not write on waking).
   */
  isLeader(): boolean {
    return this.leading && Date.now() - this.lastRenew <= this.renewDeadlineMs;
  }

  onChange(fn: (isLeader: boolean) => void): () => void {
    return this.listeners.on(fn);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops campaigning; the holder releases the Lease so another replica takes over at its next attempt. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
    if (this.leading) {
      this.set(false);
      // bounded: an unreachable API server must not hold up the shutdown (the Lease then simply expires)
      const timeout = new Promise<void>((r) => setTimeout(r, 3_000).unref());
      await Promise.race([
        this.release().catch((err) => this.opts.log.warn({ err: errorText(err) }, 'kubernetes: could not release the leader Lease')),
        timeout,
      ]);
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.attempt().finally(() => {
        this.running = null;
      });
    }, Math.max(0, ms));
    this.timer.unref();
  }

  private set(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    this.opts.log.info({ identity: this.identity, leading }, leading ? 'kubernetes: became the leader' : 'kubernetes: no longer the leader');
    this.listeners.emit(leading);
  }

  private spec(now: Date, previous?: V1Lease): V1Lease['spec'] {
    const held = previous?.spec?.holderIdentity === this.identity;
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.leaseSeconds,
      acquireTime: held && previous?.spec?.acquireTime ? new V1MicroTime(timeOf(previous.spec.acquireTime)) : new V1MicroTime(now.getTime()),
      renewTime: new V1MicroTime(now.getTime()),
      leaseTransitions: (previous?.spec?.leaseTransitions ?? 0) + (held || !previous ? 0 : 1),
    };
  }

  private async attempt(): Promise<void> {
    const { leaseNamespace: namespace, leaseName: name } = this.cluster;
    let next = this.renewMs;
    try {
      let lease: V1Lease | null = null;
      try {
        lease = await withTimeout(this.api.readNamespacedLease({ name, namespace }), CALL_TIMEOUT_MS, 'read Lease');
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
      }
      const now = new Date();
      if (!lease) {
        await withTimeout(this.api.createNamespacedLease({ namespace, body: { metadata: { name, namespace }, spec: this.spec(now) } }), CALL_TIMEOUT_MS, 'create Lease');
        this.won(now);
      } else {
        const s = lease.spec ?? {};
        const holder = s.holderIdentity || null;
        const expiresAt = timeOf(s.renewTime ?? s.acquireTime) + (s.leaseDurationSeconds ?? this.leaseSeconds) * 1000;
        this.holder = holder;
        if (holder === this.identity || !holder || expiresAt <= now.getTime()) {
          await withTimeout(this.api.replaceNamespacedLease({
            name, namespace, body: { ...lease, spec: this.spec(now, lease) },
          }), CALL_TIMEOUT_MS, 'update Lease');
          this.won(now);
        } else {
          this.set(false);
          // wake up just after this Lease would expire, if that comes before the next regular attempt
          next = Math.min(this.renewMs, expiresAt - now.getTime() + 50);
        }
      }
      this.lastError = null;
    } catch (err) {
      const status = statusOf(err);
      if (status === 409) {
        // someone else created or updated the Lease first: they lead
        this.set(false);
      } else {
        this.lastError = errorText(err);
        this.opts.log.warn({ err: this.lastError }, 'kubernetes: leader election failed');
      }
      // the holder that cannot renew steps down before its Lease can expire for the others
      if (this.leading && Date.now() - this.lastRenew > this.renewDeadlineMs) this.set(false);
      next = Math.min(this.renewMs, 2_000);
    }
    this.schedule(next);
  }

  private won(now: Date): void {
    this.lastRenew = now.getTime();
    this.holder = this.identity;
    this.set(true);
  }

  /** client-go's release: the holder cleared, so nobody has to wait for the Lease to expire. */
  private async release(): Promise<void> {
    const { leaseNamespace: namespace, leaseName: name } = this.cluster;
    const lease = await this.api.readNamespacedLease({ name, namespace });
    if (lease.spec?.holderIdentity !== this.identity) return;
    const now = new V1MicroTime(Date.now());
    await this.api.replaceNamespacedLease({
      name, namespace,
      body: { ...lease, spec: { ...lease.spec, holderIdentity: undefined, leaseDurationSeconds: 1, renewTime: now } },
    });
    this.holder = null;
  }
}
