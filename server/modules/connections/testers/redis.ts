import { abortable, errorMessage, parseUrl, prop, requireUrl, testFailure } from './lib.js';
import { ConnectionTestError, type Tester } from './types.js';

/**
 * redis: connects with ioredis to `url` (redis://, rediss://, or host:port), signs in with the username and password
 * fields when set, selects `properties.db` (or the url's /db) and sends PING; the payload is the reply, the db and the
 * server's version.
 */
export const redisTester: Tester = async (c, ctx) => {
  const raw = requireUrl(c, 'redis://cache.example:6379');
  const u = parseUrl(/^[a-z]+:\/\//i.test(raw) ? raw : `redis://${raw}`, ['redis', 'rediss']);
  const dbText = prop(c, 'db', 'database') ?? (u.pathname.replace(/^\//, '') || '0');
  const db = Number(dbText);
  if (!Number.isInteger(db) || db < 0) throw new ConnectionTestError(`db must be a whole number (got ${dbText})`);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port) || 6379;
  const target = `${host}:${port}`;
  let lastError: unknown;
  // ioredis is imported at a first redis test, not with the app
  const { Redis } = await import('ioredis');
  const client = new Redis({
    host, port, db,
    username: (u.username && decodeURIComponent(u.username)) || c.username || undefined,
    password: (u.password && decodeURIComponent(u.password)) || c.password || undefined,
    tls: u.protocol === 'rediss:' ? { rejectUnauthorized: !c.insecure_tls } : undefined,
    lazyConnect: true,
    connectTimeout: ctx.timeoutMs,
    retryStrategy: () => null, // one attempt: a test reports the first failure instead of retrying for ever
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  client.on('error', (e) => (lastError = e));
  try {
    const payload = await abortable(
      (async () => {
        await client.connect();
        const ping = await client.ping();
        const info = await client.info('server').catch(() => '');
        const version = /redis_version:([^\r\n]+)/.exec(info)?.[1];
        return { ping, db, ...(version && { version }) };
      })(),
      ctx.signal,
      () => client.disconnect(),
    );
    return payload;
  } catch (err) {
    const e = lastError && /closed/i.test(errorMessage(err)) ? lastError : err;
    const text = errorMessage(e);
    if (/WRONGPASS|NOAUTH|invalid password|invalid username/i.test(text)) throw new ConnectionTestError(`authentication failed: ${text}`);
    throw testFailure(e, target, `redis ${target}`);
  } finally {
    client.disconnect();
  }
};
