import { isDeepStrictEqual } from 'node:util';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../../config.js';
import { leaderScheduled, type LeaderScheduler } from '../../../lib/leader-scheduled.js';
import { kindByKind } from '../../kubernetes/kinds.js';
import { errorText, statusOf } from '../../kubernetes/objects.js';
import { bracketIndexes } from '../../playbooks/cr-status.js';
import { crSendCounts, type SendCounts } from './queries.js';

type Status = Record<string, unknown>;

interface Condition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/**
 * A Notification / NotificationSilence CR's validation status, written by the kubernetes module's status writer on
 * reconcile (kubernetes/status.ts): `observedGeneration`, `status` Ready or Invalid, `errorMessage` with the problems
 * by path (`spec.to.person: unknown person "nobody"`), `persistedID`, and a `Ready` condition as the Playbook's. An
 * unchanged condition keeps its lastTransitionTime, so a reconcile that changes nothing writes nothing.
 */
export function notificationCrStatus(
  kind: string, outcome: { rowId: string | null; error: string | null }, generation: number | null, previous: unknown,
): Status {
  const prev = previous && typeof previous === 'object' ? (previous as Status) : {};
  const conditions = Array.isArray(prev.conditions) ? (prev.conditions as Condition[]) : [];
  const before = conditions.find((c) => c?.type === 'Ready');
  const message = outcome.error ? bracketIndexes(outcome.error).slice(0, 2_000) : `the ${kind} is reconciled`;
  const cond: Condition = {
    type: 'Ready',
    status: outcome.error ? 'False' : 'True',
    reason: outcome.error ? 'InvalidSpec' : 'Reconciled',
    message,
    lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ...(generation === null ? {} : { observedGeneration: generation }),
  };
  if (before && before.status === cond.status && before.message === cond.message && before.lastTransitionTime) {
    cond.lastTransitionTime = before.lastTransitionTime;
  }
  return {
    observedGeneration: generation,
    status: outcome.error ? 'Invalid' : 'Ready',
    message: outcome.error ? 'the spec did not validate' : null,
    errorMessage: outcome.error ? message : null,
    ...(outcome.error ? {} : { persistedID: outcome.rowId }),
    conditions: [...conditions.filter((c) => c?.type !== 'Ready'), cond],
  };
}

/**
 * The send counts of a Notification CR (crds.md: sent, failed, pending, lastSent, lastFailed, error): `error` is the
 * rule's own (paused after a failing filter), else the last send's error when the last outcome was a failure.
 */
export function sendCountsStatus(c: SendCounts): Status {
  const lastFailedLater = c.last_failed !== null && (c.last_sent === null || c.last_failed > c.last_sent);
  return {
    sent: c.sent,
    failed: c.failed,
    pending: c.pending,
    lastSent: c.last_sent,
    lastFailed: c.last_failed,
    error: (c.rule_error ?? (lastFailedLater ? c.last_error : null))?.slice(0, 2_000) ?? null,
  };
}

/** True when every field of `want` already has that value in `have` (null means absent). */
function alreadyThere(have: unknown, want: Status): boolean {
  const h = (have && typeof have === 'object' ? have : {}) as Status;
  return Object.entries(want).every(([k, v]) => (v === null ? h[k] === undefined || h[k] === null : isDeepStrictEqual(h[k], v)));
}

/**
 * The leader's Notification CR status writer: every NOTIFICATION_CR_STATUS_SECONDS it counts each CR rule's send
 * history (one query) and merge-patches the status subresource of the CRs whose counts changed (compared with the
 * informers' copy, so an idle rule writes nothing). Registered once in notifications/index.ts.
 */
export function notificationCrStatusWriter(app: FastifyInstance, opts: { config: Config }): void {
  if (!app.hasDecorator('kube') || !app.kube.cluster) return;
  const { kc } = app.kube.cluster;
  const kind = kindByKind('Notification')!;
  const log = app.log.child({ module: 'notifications-cr-status' });
  const everyMs = opts.config.NOTIFICATION_CR_STATUS_SECONDS * 1000;
  const create = (): LeaderScheduler => {
    const api = kc.makeApiClient(CustomObjectsApi);
    let timer: NodeJS.Timeout | null = null;
    let running: Promise<void> | null = null;
    let stopped = false;
    const tick = async () => {
      for (const c of await crSendCounts(app.db)) {
        if (stopped) return;
        const want = sendCountsStatus(c);
        const obj = app.kube.sync?.cached(kind.kind, c.namespace, c.name);
        if (!obj || alreadyThere(obj.status, want)) continue;
        try {
          await api.patchNamespacedCustomObjectStatus(
            { group: kind.group, version: kind.version, plural: kind.plural, namespace: c.namespace, name: c.name, body: { status: want } },
            setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
          );
        } catch (err) {
          if (statusOf(err) !== 404) log.debug({ err: errorText(err), name: `${c.namespace}/${c.name}` }, 'notification status write failed, will retry');
        }
      }
    };
    const run = () => {
      if (running || stopped) return;
      running = tick().catch((err) => log.warn({ err: errorText(err) }, 'notification CR status: could not count sends'))
        .finally(() => (running = null));
    };
    return {
      async start() {
        timer = setInterval(run, everyMs);
        timer.unref();
        run();
      },
      async stop() {
        stopped = true;
        if (timer) clearInterval(timer);
        await running;
      },
      async reload() {
        run();
      },
    };
  };
  leaderScheduled(app, { name: 'notification CR status', create, relation: 'notification_send_history' });
}
