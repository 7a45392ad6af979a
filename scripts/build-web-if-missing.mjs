#!/usr/bin/env node
// `npm start` runs this first: builds the web bundle only when dist/web/index.html is absent, so a fresh checkout
// serves the UI while a restart stays fast. `npm run build` always rebuilds.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
if (existsSync(`${root}dist/web/index.html`)) process.exit(0);

console.log('web bundle missing: building it (vite build --config web/vite.config.ts)');
const vite = `${root}node_modules/.bin/vite`;
if (!existsSync(vite)) {
  console.warn('vite is not installed (npm ci without dev dependencies?): the server starts without the web UI');
  process.exit(0);
}
const { status } = spawnSync(vite, ['build', '--config', 'web/vite.config.ts'], { cwd: root, stdio: 'inherit' });
process.exit(status ?? 1);
