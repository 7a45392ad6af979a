import { expectOk, httpGet, jsonBody } from './http-get.js';
import { requireUrl } from './lib.js';
import { ConnectionTestError, type Tester } from './types.js';

/**
 * elasticsearch and opensearch: GET `/` (cluster info); the payload is the cluster's name and version. Basic auth and
 * insecure_tls as for http.
 */
export function searchTester(flavor: 'Elasticsearch' | 'OpenSearch'): Tester {
  return async (c, ctx) => {
    const url = requireUrl(c, 'https://search.example:9200').replace(/\/+$/, '');
    const a = await httpGet(c, `${url}/`, ctx, flavor);
    expectOk(a, flavor);
    const info = jsonBody(a, flavor);
    const version = info.version as Record<string, unknown> | undefined;
    if (!version?.number) throw new ConnectionTestError(`${a.url} did not answer with ${flavor} cluster info`);
    return {
      cluster_name: info.cluster_name, version: version.number, ...(version.distribution ? { distribution: version.distribution } : {}),
    };
  };
}
