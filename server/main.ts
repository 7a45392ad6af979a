import { readFileSync } from 'node:fs';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const config = loadConfig(process.env, version);

let embedded: EmbeddedDatabase | undefined;
const bootLog = {
  info: (m: string) => console.log(m),
  warn: (m: string) => console.warn(m),
  debug: (m: string) => (config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace') && console.log(m),
};

if (!config.DATABASE_URL) {
  embedded = await startEmbeddedPostgres(config.DATA_DIR, config.EMBEDDED_PG_PORT, bootLog);
  config.DATABASE_URL = embedded.url;
}

const app = await buildApp(config);

let closing = false;
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  app.log.info({ signal }, 'shutting down');
  try {
    await app.close();
  } finally {
    await embedded?.stop();
    process.exit(0);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

await app.listen({ port: config.PORT, host: config.HOST });
