import { z } from 'zod';
import type { CheckContext, CheckResult, CheckType } from '../types.js';
import { ConnectionFields, EnvVar, envValue, targetUrl } from './env-var.js';
import { fetchBounded, httpTarget, joinUrl, parseJsonBody, truncate } from './http.js';
import { InvalidSpecError, failResult, passResult, resultFromError, plural } from './result.js';
import { redactor } from './secrets.js';
import { USER_AGENTS } from '../util.js';

/** Fields of the elasticsearch and opensearch checks. */
export const SearchCheckSpec = z.looseObject({
  ...ConnectionFields,
  /** Index, comma list or pattern; empty searches all indices. */
  index: z.string().optional(),
  /** The search body (query DSL) as JSON text; empty means match_all. */
  query: z.string().optional(),
  /** The exact number of hits expected (reference: fails when hits.total != results). */
  results: z.number().int().min(0).optional(),
  markFailOnEmpty: z.boolean().optional(),
  /** The reference's connection `auth: {username, password}`; the top-level fields win. */
  auth: z.object({ username: EnvVar.optional(), password: EnvVar.optional() }).optional(),
});
export type SearchCheckSpec = z.infer<typeof SearchCheckSpec>;

interface SearchResponse {
  took?: number;
  hits?: { total?: number | { value?: number; relation?: string } };
  error?: { type?: string; reason?: string } | string;
}

/**
 * A check type that POSTs `query` to `{url}/{index}/_search` and compares hits.total with `results`, as the
 * reference's elasticsearch and opensearch checks do. `data` = the search response plus `count` (hits.total).
 */
export function searchCheckType(type: 'elasticsearch' | 'opensearch'): CheckType<SearchCheckSpec> {
  return { type, schema: SearchCheckSpec, run: (spec, ctx) => runSearch(type, spec, ctx) };
}

async function runSearch(type: 'elasticsearch' | 'opensearch', spec: SearchCheckSpec, ctx: CheckContext): Promise<CheckResult> {
  const start = performance.now();
  let redact = (s: string) => s;
  try {
    const username = envValue(spec.username, 'username') ?? envValue(spec.auth?.username, 'auth.username');
    const password = envValue(spec.password, 'password') ?? envValue(spec.auth?.password, 'auth.password');
    const target = httpTarget(targetUrl(spec), username, password);
    redact = redactor(password);
    const body = spec.query?.trim() ? spec.query : undefined;
    if (body !== undefined) {
      try {
        JSON.parse(body);
      } catch (err) {
        throw new InvalidSpecError(`query is not valid JSON: ${(err as Error).message}`);
      }
    }
    const index = spec.index?.trim();
    const url = joinUrl(target.url, index ? `/${encodeURIComponent(index)}/_search` : '/_search');
    const res = await fetchBounded(url, {
      method: 'POST',
      headers: { ...target.headers, 'user-agent': USER_AGENTS[type], 'content-type': 'application/json', accept: 'application/json' },
      body,
      signal: ctx.signal,
    });
    let r: SearchResponse;
    try {
      r = parseJsonBody(res) as SearchResponse;
    } catch (err) {
      if (res.status >= 300) return failResult(start, `[status=${res.status}]: ${truncate(res.text.trim(), 200) || res.statusText}`);
      throw err;
    }
    if (res.status >= 300 || r.error) {
      const e = typeof r.error === 'object' ? `${r.error.type}: ${r.error.reason}` : (r.error ?? res.statusText);
      return failResult(start, `[status=${res.status}]: ${e}`);
    }
    const total = r.hits?.total;
    const count = typeof total === 'number' ? total : total?.value;
    if (typeof count !== 'number') throw new Error('unexpected response: no hits.total');
    const data = { ...(r as Record<string, unknown>), count };
    const detail = { endpoint: url.toString(), index, count, relation: typeof total === 'object' ? total.relation : undefined, took: r.took };
    if (count === 0 && spec.markFailOnEmpty) return failResult(start, 'Query has returned empty value', { data, detail });
    const expected = spec.results ?? 0;
    if (count !== expected) return failResult(start, `Query returned ${count} hits, expected ${expected}`, { data, detail });
    return passResult(start, { message: plural(count, 'hit'), data, detail });
  } catch (err) {
    return resultFromError(start, ctx, err, redact);
  }
}
