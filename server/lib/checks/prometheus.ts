import { z } from 'zod';
import { ConnectionFields, envValue, targetUrl } from './lib/env-var.js';
import { fetchBounded, httpTarget, joinUrl, parseJsonBody, truncate } from './lib/http.js';
import { InvalidSpecError, failResult, passResult, resultFromError, plural } from './lib/result.js';
import { redactor } from './lib/secrets.js';
import type { CheckContext, CheckResult, CheckType } from './types.js';
import { USER_AGENTS } from './util.js';

export const PrometheusCheckSpec = z.looseObject({
  ...ConnectionFields,
  /** Deprecated in the reference in favour of url. */
  host: z.string().optional(),
  /** PromQL, evaluated as an instant query at the time of the run. */
  query: z.string().optional(),
  markFailOnEmpty: z.boolean().optional(),
});
export type PrometheusCheckSpec = z.infer<typeof PrometheusCheckSpec>;

/**
 * `prometheus`: an instant query through `/api/v1/query`. As in the reference the check passes whenever the query
 * runs (the `test` expression judges the value), and fails on an empty result only with `markFailOnEmpty`.
 * `data` = `{ value, firstResult, results, resultType }`: each result is the series labels plus `value` (a number);
 * `value`/`firstResult` come from the first series (0 / {} when empty).
 */
export const prometheusCheck: CheckType<PrometheusCheckSpec> = {
  type: 'prometheus',
  schema: PrometheusCheckSpec,
  run: runPrometheus,
};

interface PromResponse {
  status?: string;
  errorType?: string;
  error?: string;
  warnings?: string[];
  data?: { resultType?: string; result?: unknown };
}

async function runPrometheus(spec: PrometheusCheckSpec, ctx: CheckContext): Promise<CheckResult> {
  const start = performance.now();
  let redact = (s: string) => s;
  try {
    const username = envValue(spec.username, 'username');
    const password = envValue(spec.password, 'password');
    const target = httpTarget(targetUrl(spec, spec.host), username, password);
    redact = redactor(password, target.headers.authorization);
    const query = spec.query?.trim();
    if (!query) throw new InvalidSpecError('query is required');
    const endpoint = joinUrl(target.url, '/api/v1/query');
    const form = new URLSearchParams({ query, time: (Date.now() / 1000).toFixed(3) });
    // POST first (no URL length limit), GET when the server refuses POST, as the official Go client does
    let res = await fetchBounded(endpoint, {
      method: 'POST',
      headers: { ...target.headers, 'user-agent': USER_AGENTS.prometheus, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      signal: ctx.signal,
    });
    if (res.status === 405) {
      const get = new URL(endpoint);
      get.search = form.toString();
      res = await fetchBounded(get, { headers: { ...target.headers, 'user-agent': USER_AGENTS.prometheus, accept: 'application/json' }, signal: ctx.signal });
    }
    let body: PromResponse;
    try {
      body = parseJsonBody(res) as PromResponse;
    } catch (err) {
      if (res.status >= 400) return failResult(start, `HTTP ${res.status} ${res.statusText}: ${truncate(res.text.trim(), 200)}`);
      throw err;
    }
    if (body.status !== 'success') {
      return failResult(start, `${body.errorType ?? `HTTP ${res.status}`}: ${body.error ?? 'query failed'}`);
    }
    const data = shape(body.data?.resultType, body.data?.result);
    const detail = { endpoint: endpoint.toString(), query, resultType: data.resultType, count: data.results.length, firstResult: data.firstResult, warnings: body.warnings };
    if (body.warnings?.length) (data as Record<string, unknown>).warnings = body.warnings;
    if (spec.markFailOnEmpty && data.results.length === 0) {
      return failResult(start, 'query returned no results', { data, detail });
    }
    return passResult(start, { message: `${plural(data.results.length, 'result')}, value ${data.value}`, data, detail });
  } catch (err) {
    return resultFromError(start, ctx, err, redact);
  }
}

type Sample = [number, string];

function shape(resultType: string | undefined, result: unknown) {
  const results: Array<Record<string, unknown>> = [];
  let value: number | string = 0;
  switch (resultType) {
    case 'vector':
      for (const s of asArray<{ metric?: Record<string, string>; value?: Sample }>(result)) {
        results.push({ ...(s.metric ?? {}), value: num(s.value?.[1]) });
      }
      break;
    case 'matrix':
      // a range selector in an instant query: each series with its samples; `value` is the latest sample
      for (const s of asArray<{ metric?: Record<string, string>; values?: Sample[] }>(result)) {
        const values = (s.values ?? []).map(([t, v]) => ({ timestamp: t, value: num(v) }));
        results.push({ ...(s.metric ?? {}), value: values.at(-1)?.value ?? 0, values });
      }
      break;
    case 'scalar':
      results.push({ value: num((result as Sample | undefined)?.[1]) });
      break;
    case 'string':
      results.push({ value: String((result as Sample | undefined)?.[1] ?? '') });
      break;
    default:
      throw new Error(`unexpected resultType ${String(resultType)}`);
  }
  const firstResult = results[0] ?? {};
  if (results[0]) value = results[0].value as number | string;
  return { resultType, value, firstResult, results };
}

function asArray<T>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

/** Prometheus encodes sample values as strings ("1", "NaN", "+Inf"). */
function num(v: string | undefined): number {
  return v === undefined ? 0 : Number(v);
}
