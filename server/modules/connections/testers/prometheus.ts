import { expectOk, httpGet, jsonBody } from './http-get.js';
import { requireUrl } from './lib.js';
import { ConnectionTestError, type Tester } from './types.js';

const base = (url: string) => url.replace(/\/+$/, '');

/**
 * prometheus: `/api/v1/status/buildinfo` gives the version; a server without it (Thanos, Mimir and others answer 404)
 * is asked `query=up` instead, which must answer `status: success`. Basic auth and insecure_tls as for http.
 */
export const prometheusTester: Tester = async (c, ctx) => {
  const url = base(requireUrl(c, 'http://prometheus.example:9090'));
  const info = await httpGet(c, `${url}/api/v1/status/buildinfo`, ctx, 'prometheus');
  if (info.status === 200) {
    const data = jsonBody(info, 'Prometheus').data as Record<string, unknown> | undefined;
    if (data?.version) return { version: data.version, ...(data.revision ? { revision: data.revision } : {}) };
  }
  if (info.status === 401 || info.status === 403) expectOk(info, 'prometheus');
  const q = await httpGet(c, `${url}/api/v1/query?query=up`, ctx, 'prometheus');
  expectOk(q, 'prometheus');
  const body = jsonBody(q, 'Prometheus');
  if (body.status !== 'success') throw new ConnectionTestError(`prometheus query up failed: ${String(body.error ?? body.status)}`);
  const result = (body.data as { result?: unknown[] } | undefined)?.result;
  return { query: 'up', series: Array.isArray(result) ? result.length : 0 };
};
