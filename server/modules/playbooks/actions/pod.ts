import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, Log, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { PodAction } from '../../../contracts/playbook-actions/pod.js';
import { errorText, statusOf, withTimeout } from '../../kubernetes/objects.js';
import { abortable, abortError } from './support.js';
import { ActionFailedError, type ActionContext, type PlaybookActionType } from './types.js';

/**
 * The `pod` action (issue 14): creates a pod from `spec` (restartPolicy Never) in the namespace of the console's
 * cluster context, as the console's service account; waits for it to start, streams its first container's log to
 * the run as it is written, waits for it to finish and returns `{logs}`: the log's last `maxLength` characters (3000,
 * as the reference). A pod that ends Failed fails the action with its container's exit code (the logs kept in the
 * result). The pod is deleted at the end, and at once on cancel and timeout. `artifacts` are not collected (the
 * reference globs the console's own disk, not the pod's).
 */
export const DEFAULT_MAX_LENGTH = 3000;
/** How often a starting or ending pod is looked at (the reference polls too). */
const POLL_MS = 500;
const API_TIMEOUT_MS = 15_000;
/** The log is kept up to this for the result's tail; the run's own output store has its own cap. */
const MAX_KEPT = 1024 * 1024;
export const POD_LABEL_PREFIX = 'playbooks.mission-control.flanksource.com';

const dnsLabel = (s: string) => s.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'action';

/** The namespace of the console's current context (where pods of actions run). */
export function contextNamespace(kc: KubeConfig): string {
  return kc.getContextObject(kc.getCurrentContext())?.namespace || 'default';
}

function clusterOf(ctx: ActionContext): KubeConfig {
  if (!ctx.options.kube) throw new Error('pod: no Kubernetes cluster connection (KUBECONFIG or in-cluster credentials)');
  return ctx.options.kube;
}

function podFailure(pod: V1Pod): string {
  const statuses = pod.status?.containerStatuses ?? [];
  const t = statuses.map((c) => ({ name: c.name, t: c.state?.terminated })).find((c) => c.t && c.t.exitCode !== 0);
  if (t?.t) return `pod ${pod.metadata?.name} failed: container ${t.name} exited with code ${t.t.exitCode}${t.t.reason ? ` (${t.t.reason})` : ''}`;
  return `pod ${pod.metadata?.name} failed${pod.status?.message ? `: ${pod.status.message}` : ''}`;
}

/** Waiting reasons a pod does not recover from by itself: the action fails at once instead of at its timeout. */
const STUCK = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'CreateContainerConfigError', 'CreateContainerError']);

function stuck(pod: V1Pod): string | undefined {
  for (const c of pod.status?.containerStatuses ?? []) {
    const w = c.state?.waiting;
    if (w?.reason && STUCK.has(w.reason)) return `pod ${pod.metadata?.name} cannot start: container ${c.name} ${w.reason}${w.message ? `: ${w.message}` : ''}`;
  }
  return undefined;
}

async function waitFor(api: CoreV1Api, ns: string, name: string, done: (pod: V1Pod) => boolean, ctx: ActionContext): Promise<V1Pod> {
  for (;;) {
    const pod = await abortable(withTimeout(api.readNamespacedPod({ name, namespace: ns }), API_TIMEOUT_MS, `pod ${ns}/${name}`), ctx.signal);
    if (done(pod)) return pod;
    const why = stuck(pod);
    if (why) throw new Error(why);
    await sleep(POLL_MS, undefined, { signal: ctx.signal }).catch(() => {
      throw abortError(ctx.signal);
    });
  }
}

async function runPod(block: Record<string, unknown>, ctx: ActionContext): Promise<Record<string, unknown>> {
  const spec = PodAction.parse(block);
  const kc = clusterOf(ctx);
  const maxLength = spec.maxLength === undefined ? DEFAULT_MAX_LENGTH : Number(spec.maxLength);
  if (!Number.isInteger(maxLength) || maxLength < 0) throw new Error(`pod: maxLength must be a whole number (got ${String(spec.maxLength)})`);
  const api = kc.makeApiClient(CoreV1Api);
  const ns = contextNamespace(kc);
  const base = dnsLabel(spec.name ?? ctx.name);
  const name = `${base}-${ctx.runId.replace(/-/g, '').slice(0, 8)}-${Math.random().toString(36).slice(2, 7)}`;
  const container = spec.spec.containers[0].name;
  const body: V1Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: ns,
      labels: {
        [`${POD_LABEL_PREFIX}/pod-action`]: 'true',
        [`${POD_LABEL_PREFIX}/action`]: base,
        [`${POD_LABEL_PREFIX}/playbookRunID`]: ctx.runId,
      },
    },
    spec: { ...(spec.spec as unknown as V1Pod['spec']), restartPolicy: 'Never' } as V1Pod['spec'],
  };

  let kept = '';
  let logRequest: AbortController | undefined;
  let created = false;
  try {
    try {
      // not abortable: a cancel while the create is in flight must still learn that the pod exists, to delete it
      await withTimeout(api.createNamespacedPod({ namespace: ns, body }), API_TIMEOUT_MS, `pod ${ns}/${name}`);
      created = true;
      if (ctx.signal.aborted) throw abortError(ctx.signal);
    } catch (err) {
      if (ctx.signal.aborted) throw abortError(ctx.signal);
      throw new Error(`pod: could not create ${ns}/${name}: ${errorText(err)}`);
    }
    ctx.log('stderr', `pod ${ns}/${name} created\n`);
    const started = await waitFor(api, ns, name, (p) => p.status?.phase !== 'Pending' && !!p.status?.phase, ctx);

    // the log as it is written, until the container ends (the API server closes a followed log then)
    if (started.status?.phase === 'Running' || started.status?.phase === 'Succeeded' || started.status?.phase === 'Failed') {
      const sink = new Writable({
        write(chunk: Buffer, _enc, cb) {
          const text = chunk.toString('utf8');
          ctx.log('stdout', text);
          kept = (kept + text).slice(-MAX_KEPT);
          cb();
        },
      });
      const ended = new Promise<void>((resolve) => {
        sink.on('finish', resolve);
        sink.on('close', resolve);
      });
      logRequest = await abortable(new Log(kc).log(ns, name, container, sink, { follow: true }), ctx.signal);
      await abortable(ended, ctx.signal);
    }
    const finished = await waitFor(api, ns, name, (p) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed', ctx);
    const logs = maxLength > 0 ? kept.slice(-maxLength) : kept;
    if (finished.status?.phase === 'Failed') throw new ActionFailedError(podFailure(finished), { logs });
    return { logs };
  } catch (err) {
    if (ctx.signal.aborted) throw abortError(ctx.signal);
    if (err instanceof ActionFailedError) throw err;
    throw new Error(`pod: ${errorText(err)}`.replace(/^pod: pod: /, 'pod: '));
  } finally {
    logRequest?.abort();
    if (created) await deletePod(api, ns, name, ctx);
  }
}

async function deletePod(api: CoreV1Api, ns: string, name: string, ctx: ActionContext): Promise<void> {
  try {
    await withTimeout(api.deleteNamespacedPod({ name, namespace: ns, gracePeriodSeconds: 0 }), API_TIMEOUT_MS, `pod ${ns}/${name}`);
    ctx.log('stderr', `pod ${ns}/${name} deleted\n`);
  } catch (err) {
    if (statusOf(err) !== 404) ctx.log('stderr', `pod ${ns}/${name} could not be deleted: ${errorText(err)}\n`);
  }
}

export const podAction: PlaybookActionType = { type: 'pod', run: runPod };
