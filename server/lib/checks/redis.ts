import { isIP } from 'node:net';
import type { Redis, RedisOptions } from 'ioredis';
import { z } from 'zod';
import { abortable } from './lib/abort.js';
import { ConnectionFields, envValue, interpolateCredentials, targetUrl } from './lib/env-var.js';
import { InvalidSpecError, failResult, passResult, resultFromError } from './lib/result.js';
import { maskUrl, redactor } from './lib/secrets.js';
import { TlsConfig, tlsOptions, tlsSecrets } from './lib/tls.js';
import type { CheckContext, CheckResult, CheckType } from './types.js';

export const RedisCheckSpec = z.looseObject({
  ...ConnectionFields,
  /** Deprecated in the reference in favour of url: `host:port`. */
  addr: z.string().optional(),
  db: z.number().int().min(0).optional(),
  /** TLS as the reference: `enable`, or any of ca / cert+key / insecureSkipVerify, turns it on (as does rediss://). */
  tlsConfig: TlsConfig.optional(),
});
export type RedisCheckSpec = z.infer<typeof RedisCheckSpec>;

/**
 * `redis`: connects with ioredis (url `redis://` / `rediss://` / `host:port`, or addr), authenticates with
 * username/password, selects `db` and sends PING; passes on PONG. `data` = `{ result }`.
 */
export const redisCheck: CheckType<RedisCheckSpec> = {
  type: 'redis',
  schema: RedisCheckSpec,
  run: runRedis,
};

async function runRedis(spec: RedisCheckSpec, ctx: CheckContext): Promise<CheckResult> {
  const start = performance.now();
  let redact = (s: string) => s;
  let client: Redis | undefined;
  try {
    const username = envValue(spec.username, 'username');
    const password = envValue(spec.password, 'password');
    const target = redisTarget(interpolateCredentials(targetUrl(spec, spec.addr), username, password));
    const options: RedisOptions = {
      ...target.options,
      username: target.options.username ?? username,
      password: target.options.password ?? password,
      // SELECT is sent by us below: ioredis only emits an 'error' event when its own SELECT fails
      db: undefined,
      lazyConnect: true,
      connectTimeout: Math.max(1, ctx.timeoutMs),
      // one attempt per run: the scheduler retries, not the client
      retryStrategy: () => null,
      reconnectOnError: () => false,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      // the ready check sends INFO, which an ACL user may not be allowed to run; PING is what we check
      enableReadyCheck: false,
    };
    const t = spec.tlsConfig;
    if (t && (t.enable || t.ca !== undefined || t.cert !== undefined || t.insecureSkipVerify !== undefined)) {
      const host = options.host ?? '';
      // SNI carries names only (RFC 6066)
      options.tls = { ...options.tls, ...tlsOptions(t), ...(isIP(host) ? {} : { servername: host }) };
    }
    const db = spec.db ?? target.options.db ?? 0;
    redact = redactor(password, options.password, ...tlsSecrets(t));
    // ioredis is imported at a first redis check, not with the app
    const { Redis } = await import('ioredis');
    const c = new Redis(options);
    client = c;
    let lastError: unknown;
    c.on('error', (e) => (lastError = e)); // ioredis logs unhandled 'error' events; the awaited call reports them
    const result = await abortable(
      (async () => {
        try {
          await c.connect();
        } catch (err) {
          throw lastError ?? err;
        }
        if (db !== 0) await c.select(db);
        return c.ping();
      })(),
      ctx.signal,
      () => c.disconnect(),
    );
    const detail = { endpoint: maskUrl(target.endpoint), db, result };
    if (result !== 'PONG') return failResult(start, `expected PONG as result, got ${result}`, { data: { result }, detail });
    return passResult(start, { message: result, data: { result }, detail });
  } catch (err) {
    return resultFromError(start, ctx, err, redact);
  } finally {
    client?.disconnect();
  }
}

function redisTarget(raw: string): { endpoint: string; options: RedisOptions } {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new InvalidSpecError(`invalid redis url: ${maskUrl(raw)}`);
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
      throw new InvalidSpecError(`unsupported scheme in ${maskUrl(raw)} (expected redis://, rediss:// or host:port)`);
    }
    const db = url.pathname.replace(/^\//, '');
    if (db && !/^\d+$/.test(db)) throw new InvalidSpecError(`invalid redis database "${db}" in url`);
    return {
      endpoint: raw,
      options: {
        host: url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
        port: url.port ? Number(url.port) : 6379,
        username: url.username ? decodeURIComponent(url.username) : undefined,
        password: url.password ? decodeURIComponent(url.password) : undefined,
        db: db ? Number(db) : undefined,
        tls: url.protocol === 'rediss:' ? { servername: url.hostname } : undefined,
      },
    };
  }
  const m = /^(?:\[([^\]]+)\]|([^:/\s]+))(?::(\d+))?$/.exec(raw);
  if (!m) throw new InvalidSpecError(`invalid redis address "${raw}" (expected host:port or a redis:// url)`);
  const port = m[3] ? Number(m[3]) : 6379;
  if (port < 1 || port > 65535) throw new InvalidSpecError(`invalid port ${port}`);
  return { endpoint: raw, options: { host: m[1] ?? m[2], port } };
}
