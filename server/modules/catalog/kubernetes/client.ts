import { setMaxListeners } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** One request to the API server may take this long (client-node sets no timeout of its own). */
const REQUEST_TIMEOUT_MS = 60_000;

/** An API server answer other than 2xx: `status` is the HTTP status, the message the Status object's. */
export class KubeRequestError extends Error {
  constructor(message: string, readonly status: number | null) {
    super(message);
  }
}

/**
 * Plain JSON GETs against an API server with a kubeconfig's credentials. The scraper reads every kind, built-in or
 * custom, as the server sends it: client-node's typed clients would turn each object into model classes (dates as
 * Date, unknown fields dropped), which costs time at 10,000 objects and changes what the catalog stores.
 */
export class KubeReader {
  private readonly base: URL;
  private readonly agent: http.Agent;

  constructor(private readonly kc: KubeConfig, private readonly signal?: AbortSignal) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.base = new URL(cluster.server.replace(/\/+$/, ''));
    // every request in flight listens on the run's signal (discovery asks each group at once)
    if (signal) setMaxListeners(100, signal);
    this.agent = this.base.protocol === 'https:' ? new https.Agent({ keepAlive: true, maxSockets: 8 }) : new http.Agent({ keepAlive: true, maxSockets: 8 });
  }

  get server(): string {
    return this.base.origin;
  }

  /** GETs `path` (with its query) and parses the JSON body; throws KubeRequestError on a non-2xx answer. */
  async get<T>(path: string): Promise<T> {
    const opts: https.RequestOptions = { headers: { Accept: 'application/json' } };
    await this.kc.applyToHTTPSOptions(opts);
    const basePath = this.base.pathname === '/' ? '' : this.base.pathname;
    const mod = this.base.protocol === 'https:' ? https : http;
    return new Promise<T>((resolve, reject) => {
      const req = mod.request({
        ...opts, protocol: this.base.protocol, hostname: this.base.hostname, port: this.base.port, path: basePath + path,
        method: 'GET', agent: this.agent, signal: this.signal, timeout: REQUEST_TIMEOUT_MS,
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const code = res.statusCode ?? 0;
          if (code < 200 || code >= 300) {
            let msg = text.slice(0, 300);
            try {
              msg = (JSON.parse(text) as { message?: string }).message ?? msg;
            } catch { /* not a Status object */ }
            reject(new KubeRequestError(`GET ${path.split('?')[0]}: ${code} ${msg}`, code));
            return;
          }
          try {
            resolve(JSON.parse(text) as T);
          } catch (err) {
            reject(new KubeRequestError(`GET ${path.split('?')[0]}: not JSON (${(err as Error).message})`, code));
          }
        });
      });
      req.on('timeout', () => req.destroy(new Error(`GET ${path.split('?')[0]}: no answer in ${REQUEST_TIMEOUT_MS / 1000} s`)));
      req.on('error', (err) => reject(err instanceof KubeRequestError ? err : new KubeRequestError(`${this.base.origin}: ${err.message}`, null)));
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
