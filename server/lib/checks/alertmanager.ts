import { z } from 'zod';
import { ConnectionFields, envValue, targetUrl } from './lib/env-var.js';
import { fetchBounded, httpTarget, joinUrl, parseJsonBody, truncate } from './lib/http.js';
import { InvalidSpecError, failResult, invalidResult, passResult, resultFromError, plural } from './lib/result.js';
import { redactor } from './lib/secrets.js';
import type { CheckContext, CheckResult, CheckType } from './types.js';
import { USER_AGENTS } from './util.js';

export const AlertmanagerCheckSpec = z.looseObject({
  ...ConnectionFields,
  /** Alert names (regexes) to include. */
  alerts: z.array(z.string()).optional(),
  /** label -> regex the alert must match. */
  filters: z.record(z.string(), z.string()).optional(),
  /** label -> regex the alert must not match. */
  exclude_filters: z.record(z.string(), z.string()).optional(),
  /** Alert names (regexes) to leave out. */
  ignore: z.array(z.string()).optional(),
  markFailOnEmpty: z.boolean().optional(),
});
export type AlertmanagerCheckSpec = z.infer<typeof AlertmanagerCheckSpec>;

/**
 * `alertmanager`: lists the alerts matching the spec through `GET /api/v2/alerts`. As in the reference the check
 * itself passes when the API answers (a `transform` or `test` turns alerts into health); `data` = `{ alerts, count }`,
 * each alert `{ name, message, labels, annotations, fingerprint, state, startsAt }` where `name` is the alert name
 * plus namespace/node/workload/container labels (`KubePodCrashLooping/prod/api-7d9/app`).
 */
export const alertmanagerCheck: CheckType<AlertmanagerCheckSpec> = {
  type: 'alertmanager',
  schema: AlertmanagerCheckSpec,
  run: runAlertmanager,
};

interface GettableAlert {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  fingerprint?: string;
  startsAt?: string;
  status?: { state?: string };
}

async function runAlertmanager(spec: AlertmanagerCheckSpec, ctx: CheckContext): Promise<CheckResult> {
  const start = performance.now();
  let redact = (s: string) => s;
  try {
    const username = envValue(spec.username, 'username');
    const password = envValue(spec.password, 'password');
    const target = httpTarget(targetUrl(spec), username, password);
    redact = redactor(password);
    const filters = alertFilters(spec);
    const url = joinUrl(target.url, '/api/v2/alerts');
    for (const f of filters) url.searchParams.append('filter', f);
    const res = await fetchBounded(url, { headers: { ...target.headers, 'user-agent': USER_AGENTS.alertmanager, accept: 'application/json' }, signal: ctx.signal });
    if (res.status === 400) {
      // Alertmanager rejects a filter it cannot parse: the spec is wrong, not the target
      return invalidResult(start, `alertmanager rejected the filters: ${truncate(res.text.trim(), 300)}`);
    }
    if (res.status >= 300) return failResult(start, `HTTP ${res.status} ${res.statusText}: ${truncate(res.text.trim(), 200)}`);
    const body = parseJsonBody(res);
    if (!Array.isArray(body)) throw new Error('unexpected response: expected a list of alerts');
    const alerts = (body as GettableAlert[]).map((a) => {
      const labels = a.labels ?? {};
      const annotations = a.annotations ?? {};
      return {
        name: fullName(labels.alertname ?? '', labels),
        message: alertMessage(annotations),
        labels,
        annotations,
        fingerprint: a.fingerprint ?? '',
        state: a.status?.state,
        startsAt: a.startsAt,
      };
    });
    const data = { alerts, count: alerts.length };
    const detail = { endpoint: url.toString(), count: alerts.length, alerts: alerts.slice(0, 50).map((a) => ({ name: a.name, message: truncate(a.message, 300) })) };
    if (spec.markFailOnEmpty && alerts.length === 0) return failResult(start, 'no alerts matched', { data, detail });
    return passResult(start, { message: plural(alerts.length, 'alert'), data, detail });
  } catch (err) {
    return resultFromError(start, ctx, err, redact);
  }
}

const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * The `filter` matchers (ANDed by Alertmanager). `alerts` become one alternation: the reference sends one
 * `alertname=~` per entry, which Alertmanager ANDs, so two different names could never match.
 */
export function alertFilters(spec: AlertmanagerCheckSpec): string[] {
  const out: string[] = [];
  const label = (k: string) => {
    if (!LABEL.test(k)) throw new InvalidSpecError(`invalid label name "${k}" in filters`);
    return k;
  };
  for (const [k, v] of Object.entries(spec.filters ?? {})) out.push(`${label(k)}=~${quote(v)}`);
  const names = (spec.alerts ?? []).filter((a) => a.trim());
  if (names.length) out.push(`alertname=~${quote(names.length === 1 ? names[0] : names.map((n) => `(?:${n})`).join('|'))}`);
  for (const n of spec.ignore ?? []) if (n.trim()) out.push(`alertname!~${quote(n)}`);
  for (const [k, v] of Object.entries(spec.exclude_filters ?? {})) out.push(`${label(k)}!~${quote(v)}`);
  return out;
}

/** A double-quoted matcher value (Alertmanager unquotes it like a Go string). */
function quote(v: string): string {
  return JSON.stringify(v);
}

function alertMessage(annotations: Record<string, string>): string {
  for (const k of ['message', 'description', 'summary']) if (annotations[k] !== undefined) return annotations[k];
  return '';
}

function fullName(name: string, labels: Record<string, string>): string {
  const parts = [name];
  for (const k of ['namespace', 'node']) if (labels[k]) parts.push(labels[k]);
  // only the first workload-ish label
  for (const k of ['deployment', 'daemonset', 'statefulset', 'cronjob_name', 'job_name', 'pod', 'nodename']) {
    if (labels[k]) {
      parts.push(labels[k]);
      break;
    }
  }
  if (labels.container && labels.job !== labels.container) parts.push(labels.container);
  return parts.join('/');
}
