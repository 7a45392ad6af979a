import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const { version } = JSON.parse(readFileSync(here('../package.json'), 'utf8')) as { version: string };
/** Fluent's `tokens` object (every token name spelled out as `var(--name)`) as a Proxy: web/src/lib/fluent-tokens.ts. */
const fluentTokens: Plugin = {
  name: 'fluent-tokens-proxy',
  enforce: 'pre',
  resolveId(source, importer) {
    if (source === './tokens.js' && importer && /[\\/]@fluentui[\\/]tokens[\\/]lib[\\/]index\.js$/.test(importer)) {
      return here('src/lib/fluent-tokens.ts');
    }
    return null;
  },
};
// the dev server forwards API calls to a running `npm start`
const api = process.env.API_URL ?? 'http://localhost:8080';

export default defineConfig({
  root: here('.'),
  plugins: [fluentTokens, react()],
  define: { __APP_VERSION__: JSON.stringify(version) },
  resolve: {
    // the zod contracts are shared with the server: the web imports them, never copies them
    alias: { '@contracts': here('../server/contracts') },
  },
  build: {
    outDir: here('../dist/web'),
    emptyOutDir: true,
    sourcemap: false,
    // .vite/manifest.json: scripts/bench-web.ts follows it to size the initial JavaScript of a route
    manifest: true,
    chunkSizeWarningLimit: 1500,
    // every browser the console supports runs ES2022 as is (no down-levelled class fields or private methods)
    target: 'es2022',
    rolldownOptions: {
      output: {
        // everything main.tsx imports statically goes into one chunk: Rolldown would otherwise split the start-up code
        // into a dozen shared chunks (each gzipped alone, plus import/export glue), about 11 kB gzip more to load
        codeSplitting: { groups: [{ name: 'app', test: /\/web\/src\/main\.tsx$/ }] },
      },
    },
  },
  server: {
    proxy: { '/api': { target: api, ws: true }, '/kubeproxy': api },
  },
});
