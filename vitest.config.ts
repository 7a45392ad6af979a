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
  },
});
