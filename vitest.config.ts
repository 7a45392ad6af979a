import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: { '@contracts': fileURLToPath(new URL('./server/contracts', import.meta.url)) },
  },
  test: {
    // web component tests pick their DOM per file with `// @vitest-environment jsdom`
    include: ['server/**/*.test.ts', 'tests/server/**/*.test.ts', 'tests/kube/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'],
    globalSetup: ['tests/server/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test processes trust the local httpbin's certificate (tests/support/httpbin.ts) as a user trusts a private CA:
    // Node reads NODE_EXTRA_CA_CERTS only when a process starts, so it is set here, for the forked workers.
    env: { NODE_EXTRA_CA_CERTS: fileURLToPath(new URL('./tests/fixtures/canary-checker/_local/httpbin.crt', import.meta.url)) },
  },
});
