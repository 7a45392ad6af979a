import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

// Server and kube test files import the same module graph (server/app.ts and its libraries, about 560 modules):
// isolated, every file paid ~4.6 s importing it again in a fresh process. Sharing a worker's module cache
// (isolate: false) lets each of the 2 workers import it once; the files' state lives in their own databases and apps.
// The whole suite passed with it (346 files); VITEST_SHARE=0 isolates every file again, to tell a leak between files
// from a real failure.
const share = process.env.VITEST_SHARE !== '0';

const SERVER_FILES = ['server/**/*.test.ts', 'tests/server/**/*.test.ts', 'tests/kube/**/*.test.ts'];
// Files that change module state other files read, without putting it back: they run in a process of their own.
const STATEFUL_FILES = [
  // pushes a test factor into FACTORS, which flows/engine.ts's cached assurance SQL (built once) would not see
  'tests/server/auth-aal.test.ts',
  // configureCourier(...) short timings, never reset
  'tests/server/auth-courier.test.ts',
  'tests/server/auth-limits.test.ts',
  'tests/server/auth-mail-system.test.ts',
  'tests/server/auth-recovery.test.ts',
  'tests/server/auth-verification.test.ts',
  // setPerHostLimit(...), never reset
  'tests/server/notifications-senders.test.ts',
];

export default defineConfig({
  resolve: {
    alias: { '@contracts': fileURLToPath(new URL('./server/contracts', import.meta.url)) },
  },
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test processes trust the local httpbin's certificate (tests/support/httpbin.ts) as a user trusts a private CA:
    // Node reads NODE_EXTRA_CA_CERTS only when a process starts, so it is set here, for the forked workers.
    env: { NODE_EXTRA_CA_CERTS: fileURLToPath(new URL('./tests/fixtures/canary-checker/_local/httpbin.crt', import.meta.url)) },
    // VITEST_IMPORTS=1 prints the slowest imports (self and total time per module) after the run
    ...(process.env.VITEST_IMPORTS === '1' && { experimental: { importDurations: { print: true, limit: 30 } } }),
    projects: [
      {
        extends: true,
        test: {
          name: 'server',
          include: SERVER_FILES,
          exclude: [...configDefaults.exclude, ...(share ? STATEFUL_FILES : [])],
          globalSetup: ['tests/server/global-setup.ts'],
          isolate: !share,
        },
      },
      ...(share
        ? [{ extends: true as const, test: { name: 'server-isolated', include: STATEFUL_FILES, globalSetup: ['tests/server/global-setup.ts'] } }]
        : []),
      {
        // web component tests pick their DOM per file with `// @vitest-environment jsdom`; the vi.mock users are here,
        // so these stay isolated
        extends: true,
        test: { name: 'web', include: ['web/src/**/*.test.{ts,tsx}'] },
      },
    ],
  },
});
