import { expectOk, httpGet } from './http-get.js';
import { requireUrl } from './lib.js';
import type { Tester } from './types.js';

/** http: GET `url` (basic auth from username/password, insecure_tls honoured); any 2xx or 3xx passes. */
export const httpTester: Tester = async (c, ctx) => {
  const a = await httpGet(c, requireUrl(c, 'https://service.example/healthz'), ctx, 'GET');
  expectOk(a, 'GET');
  return { url: a.url, status: a.status, statusText: a.statusText, ...(a.headers['content-type'] && { contentType: a.headers['content-type'] }) };
};
