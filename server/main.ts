import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { agentSettingsProblem, loadConfig } from './config.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { argon2Verifier } from './lib/crypto.js';
import { loadDemoSets, startDemoSets } from './lib/demo.js';
import { ensureAdmin } from './modules/auth/bootstrap.js';
import { authEncryptionKey } from './modules/auth/secret-box.js';
import { DEMO_SETS } from './modules/demo/index.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const config = loadConfig(process.env, version);
const print = (line: string) => console.log(line);
const bootLog = {
  info: print,
  warn: (m: string) => console.warn(m),
  debug: (m: string) => (config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace') && print(m),
};
// Past this, shutdown stops waiting for open requests and stops the database anyway.
const CLOSE_TIMEOUT_MS = 10_000;

let embedded: EmbeddedDatabase | undefined;
let app: FastifyInstance | undefined;
let closing = false;

async function start() {
  const refused = agentSettingsProblem(config); // MODE=agent without UPSTREAM_URL or AGENT_TOKEN
  if (refused) throw new Error(refused);
  if (config.MODE === 'console') authEncryptionKey(config); // a malformed AUTH_ENCRYPTION_KEY refuses to start; else DATA_DIR's key, made once
  if (config.MODE === 'console') bootLog.info(`password verifier: ${argon2Verifier()}`);
  if (!config.DATABASE_URL) {
    embedded = await startEmbeddedPostgres(config.DATA_DIR, config.EMBEDDED_PG_PORT, bootLog, { detached: true });
    config.DATABASE_URL = embedded.url;
  }
  app = await buildApp(config);
  await ensureAdmin(app.db, config, print);
  if (config.DEMO_DATA) {
    const loaded = await loadDemoSets(app.db, DEMO_SETS);
    if (loaded.length) app.log.info({ loaded }, 'demo data loaded');
  }
  if (closing) return;
  await app.listen({ port: config.PORT, host: config.HOST });
  const { port } = app.server.address() as AddressInfo;
  print(`Console ready at ${config.PUBLIC_URL ?? `http://localhost:${port}`}`);
  if (config.DEMO_DATA) await startDemoSets(app, DEMO_SETS); // e.g. the demo agent's pinger
}

/** Stops in order: the app (in-flight requests finish), then the database; waits for a start still under way. */
async function stop(code: number) {
  closing = true;
  await started.catch(() => {});
  const timeout = new Promise((r) => setTimeout(r, CLOSE_TIMEOUT_MS).unref());
  await Promise.race([app?.close(), timeout]).catch((err) => console.error('error closing the app', err));
  await embedded?.stop();
  process.exit(code);
}

function onSignal(signal: NodeJS.Signals) {
  if (closing) return;
  print(`${signal} received, shutting down`);
  void stop(0);
}
process.on('SIGTERM', onSignal);
process.on('SIGINT', onSignal);

const started = start();
started.catch((err) => {
  console.error('start-up failed:', err instanceof Error ? err.message : err);
  if (!closing) void stop(1);
});
