#!/usr/bin/env node
// Playwright's webServer: builds the bundle, then runs the real server on a fresh temporary DATA_DIR (embedded
// PostgreSQL included) and removes that directory once the server has stopped.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = (name) => join(root, 'node_modules/.bin', name);

// E2E_DIST builds into (and serves from) a private directory, so two Playwright runs on one machine (with different
// E2E_PORTs) do not overwrite each other's bundle in dist/web. Relative to the repository root: vite would read a
// relative --outDir from its root (web/) while the server reads WEB_DIR from the repository root.
const webDir = process.env.E2E_DIST ? resolve(root, process.env.E2E_DIST) : undefined;
if (process.env.E2E_SKIP_BUILD !== '1') {
  const out = webDir ? ['--outDir', webDir, '--emptyOutDir'] : [];
  const build = spawnSync(bin('vite'), ['build', '--config', 'web/vite.config.ts', '--logLevel', 'warn', ...out], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const dataDir = mkdtempSync(join(tmpdir(), 'console-e2e-'));
const server = spawn(bin('tsx'), ['server/main.ts'], { cwd: root, stdio: 'inherit', env: { ...process.env, DATA_DIR: dataDir, ...(webDir ? { WEB_DIR: webDir } : {}) } });

let stopping = false;
const stop = (signal) => {
  if (stopping) return;
  stopping = true;
  server.kill(signal);
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
server.on('exit', (code, signal) => {
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(code ?? (signal ? 0 : 1));
});
