import type { MongoClient, MongoClientOptions } from 'mongodb';
import { abortable, errorMessage, maskUrl, requireUrl, testFailure } from './lib.js';
import { ConnectionTestError, type Tester } from './types.js';

/**
 * mongo: the official driver (mongodb 7.8.0) connects to `url` (mongodb://host:port/db or mongodb+srv://), signing in
 * with the url's credentials or, when it has none, the username and password fields (SCRAM, as the server offers),
 * then runs `ping` on the url's database (admin by default) and asks `buildInfo` for the version. `insecure_tls`
 * accepts any certificate when the url asks for TLS. The payload is the masked url, the database, the ping reply and
 * the server's version.
 */
export const mongoTester: Tester = async (c, ctx) => {
  const raw = requireUrl(c, 'mongodb://mongo.example:27017/admin');
  if (!/^mongodb(\+srv)?:\/\//i.test(raw)) throw new ConnectionTestError('url must start with mongodb:// or mongodb+srv://');
  const shown = maskUrl(raw);
  // mongodb:// may list several hosts, which URL cannot parse: read the parts by hand
  const m = /^mongodb(?:\+srv)?:\/\/(?:([^@/]*)@)?([^/?]+)(?:\/([^?]*))?/i.exec(raw);
  if (!m || !m[2]) throw new ConnectionTestError(`url has no host: ${shown}`);
  const hosts = m[2];
  const database = decodeURIComponent(m[3] ?? '') || 'admin';
  const opts: MongoClientOptions = {
    appName: 'ops-console connection test',
    serverSelectionTimeoutMS: ctx.timeoutMs,
    connectTimeoutMS: ctx.timeoutMs,
    socketTimeoutMS: ctx.timeoutMs,
    maxPoolSize: 1,
  };
  if (!m[1] && c.username) opts.auth = { username: c.username, password: c.password };
  if (c.insecure_tls) opts.tlsInsecure = true;
  // the driver is imported at a first mongo test, not with the app (a few hundred ms of CPU at every start)
  const { MongoClient, MongoServerError } = await import('mongodb');
  let client: MongoClient;
  try {
    client = new MongoClient(raw, opts);
  } catch (err) {
    throw new ConnectionTestError(`url is not a valid MongoDB connection string: ${errorMessage(err).replace(raw, shown)}`);
  }
  const target = hosts.includes(',') ? hosts : hosts.replace(/^\[|\]$/g, '');
  // the driver retries server selection until its timeout; with one host, its first failed heartbeat (refused, DNS,
  // auth) is the answer, so the test says it at once instead of 'timed out' seconds later
  const single = !hosts.includes(',') && !/^mongodb\+srv:/i.test(raw);
  const firstFailure = new Promise<never>((_, reject) => {
    if (single) client.once('serverHeartbeatFailed', (ev) => reject(ev.failure));
  });
  firstFailure.catch(() => {});
  try {
    return await abortable(
      (async () => {
        await Promise.race([client.connect(), firstFailure]);
        const ping = await client.db(database).command({ ping: 1 });
        const info = await client.db('admin').command({ buildInfo: 1 }).catch(() => undefined);
        return { url: shown, database, ping: ping.ok, ...(typeof info?.version === 'string' && { version: info.version }) };
      })(),
      ctx.signal,
      () => void client.close(true).catch(() => {}),
    );
  } catch (err) {
    throw mongoFailure(err, target, MongoServerError);
  } finally {
    await client.close(true).catch(() => {});
  }
};

/** What a driver error means for the user; server selection errors carry the real cause in `reason`/`cause`. */
function mongoFailure(err: unknown, target: string, MongoServerError: typeof import('mongodb').MongoServerError): ConnectionTestError {
  if (err instanceof ConnectionTestError) return err;
  const servers = (err as { reason?: { servers?: Map<string, { error?: unknown }> } }).reason?.servers;
  const inner = [...(servers?.values() ?? [])].map((s) => s.error).find(Boolean) ?? (err as { cause?: unknown }).cause;
  for (const e of [err, inner]) {
    if (e instanceof MongoServerError && (e.code === 18 || e.codeName === 'AuthenticationFailed')) {
      return new ConnectionTestError(`authentication failed: ${target} refused the username or password`);
    }
  }
  const text = errorMessage(inner ?? err);
  if (/Authentication failed/i.test(text)) return new ConnectionTestError(`authentication failed: ${target} refused the username or password`);
  if (/timed out|timeout/i.test(text)) return new ConnectionTestError(`timed out waiting for MongoDB at ${target}`);
  if (/ECONNREFUSED/.test(text)) return new ConnectionTestError(`connection refused: nothing accepts connections at ${target}`);
  if (/ENOTFOUND|EAI_AGAIN|querySrv/.test(text)) return new ConnectionTestError(`host not found: ${target.replace(/:\d+$/, '')} does not resolve (DNS)`);
  return testFailure(inner ?? err, target, `MongoDB ${target}`);
}
