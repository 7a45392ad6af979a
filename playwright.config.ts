import { defineConfig } from '@playwright/test';
import { ADMIN, BASE_URL, E2E_PORT, E2E_SMTP_PORT } from './tests/e2e/env';

/** Specs that switch a feature off or set a property for the whole server while they run (see `projects`). */
const EXCLUSIVE = ['**/settings-feature-flags.spec.ts', '**/live-updates.spec.ts', '**/shell.spec.ts', '**/incidents.spec.ts'];

/** Browser tests against the real server and database (tests/e2e/web-server.mjs), with Debian's chromium. */
export default defineConfig({
  testDir: 'tests/e2e',
  testMatch: '**/*.spec.ts',
  // One worker by default: on the 2-core CI machine two workers (two browsers against one server) were no faster
  // (the first half of the suite took 17.5 min either way, load ~12) and timed out more. E2E_WORKERS=2 suits a bigger
  // machine: specs that change server-wide state (feature flags, properties) are the `exclusive` project, run alone
  // after every other spec; the rest make their own uniquely named rows.
  workers: Number(process.env.E2E_WORKERS ?? 1),
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  // on CI a broken run ends early and says so: a server that stops answering would otherwise cost every remaining test
  // its 60 s budget twice (the retry), past CI's hard limit, with nothing in the log but the limit. Every failed
  // attempt counts, a flaky test's first one too, hence 20.
  maxFailures: process.env.CI ? 20 : 0,
  globalTimeout: process.env.CI ? 45 * 60_000 : 0,
  // a test's own budget: an axe scan of a page with a Monaco editor or a drawer takes 3 s on a quiet 2-core machine and
  // over 15 s on a loaded one; passing tests take what they take, only a failing one waits this long
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never', outputFolder: '.tmp/e2e-report' }]],
  outputDir: '.tmp/e2e-results',
  use: {
    baseURL: BASE_URL,
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync',
      ],
    },
    viewport: { width: 1366, height: 800 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    { name: 'shared', testIgnore: EXCLUSIVE },
    { name: 'exclusive', testMatch: EXCLUSIVE, dependencies: ['shared'], workers: 1 },
  ],
  webServer: {
    command: 'node tests/e2e/web-server.mjs',
    url: `${BASE_URL}/readyz`,
    timeout: 120_000,
    reuseExistingServer: false,
    // SIGTERM lets the server stop its embedded PostgreSQL before the temporary data directory is removed
    gracefulShutdown: { signal: 'SIGTERM', timeout: 20_000 },
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(E2E_PORT),
      HOST: '127.0.0.1',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
      // every test signs in; the default of 10 a minute per address would lock the suite out
      LOGIN_RATE_LIMIT: '1000',
      PUBLIC_URL: BASE_URL,
      // recovery and invite mails go to a loopback SMTP server a spec starts when it reads them (auth-flows.spec.ts);
      // without a listener they wait in the outbox, as with a mail server that is down
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(E2E_SMTP_PORT),
      SMTP_ENCRYPTION: 'None',
      SMTP_FROM: 'console@e2e.test',
    },
  },
});
