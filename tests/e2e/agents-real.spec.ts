import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, request, test } from '@playwright/test';
import { adminApi, type ApiSession } from './api';
import { ADMIN, BASE_URL } from './env';
import { signIn } from './pages/sign-in';

/**
 * Two processes on loopback (issue 16): the e2e server is the upstream; a real agent (`server/main.ts`, MODE=agent,
 * its own DATA_DIR and embedded PostgreSQL, a token generated upstream) runs a TCP check made on the agent and
 * pushes it. The upstream's /health shows the check with the agent's badge and under the Agent tab.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const stamp = Date.now().toString(36);
const AGENT_NAME = `e2e-real-${stamp}`;
const CHECK_NAME = `upstream-port-${stamp}`;

let admin: ApiSession;
let agent: ChildProcess | undefined;
let dataDir: string | undefined;
const lines: string[] = [];

/** Starts the agent child; resolves with its URL once it listens. */
function startAgent(token: string): Promise<string> {
  dataDir = mkdtempSync(join(tmpdir(), 'e2e-agent-'));
  agent = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env, MODE: 'agent', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DEMO_DATA: 'false', LOG_LEVEL: 'warn',
      KUBERNETES: 'off', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, LOGIN_RATE_LIMIT: '1000',
      UPSTREAM_URL: BASE_URL, AGENT_TOKEN: token, AGENT_NAME, AGENT_PUSH_INTERVAL_MS: '500', AGENT_PING_INTERVAL_MS: '2000',
      PUBLIC_URL: '', SMTP_HOST: '', SMTP_PORT: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      for (const line of d.toString('utf8').split('\n')) {
        if (!line) continue;
        lines.push(line);
        if (lines.length > 100) lines.shift();
        const m = /ready at http:\/\/[^:]+:(\d+)/.exec(line);
        if (m) resolve(`http://127.0.0.1:${m[1]}`);
      }
    };
    agent!.stdout!.on('data', onData);
    agent!.stderr!.on('data', onData);
    agent!.on('exit', (code) => reject(new Error(`the agent exited (${code}):\n${lines.slice(-20).join('\n')}`)));
  });
}

test.beforeAll(async () => {
  admin = await adminApi();
});
test.afterAll(async () => {
  await admin?.api.dispose();
  if (agent && agent.exitCode === null) {
    const exited = new Promise((r) => agent!.once('exit', r));
    agent.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('a real agent\'s check shows upstream with the agent badge and under the Agent tab', async ({ page }) => {
  // a second server process (tsx compiling the server, an embedded PostgreSQL) on a shared 2-core machine
  test.setTimeout(300_000);
  const made = await admin.api.post('/api/agent/generate', { data: { name: AGENT_NAME, properties: { env: 'e2e' } }, headers: { 'x-csrf-token': admin.csrf } });
  expect(made.status(), await made.text()).toBe(201);
  const { access_token: token } = (await made.json()) as { access_token: string };
  const agentUrl = await startAgent(token);

  // a check made on the agent, through its own API: a TCP check of the upstream's port
  const onAgent = await request.newContext({ baseURL: agentUrl });
  const login = await onAgent.post('/api/auth/login', { data: { username: ADMIN.email, password: ADMIN.password } });
  expect(login.status(), await login.text()).toBe(200);
  const csrf = (await login.json()).csrf_token as string;
  const canary = await onAgent.post('/api/canary', {
    headers: { 'x-csrf-token': csrf },
    data: { name: `edge-${stamp}`, namespace: 'default', spec: { schedule: '@every 2s', tcp: [{ name: CHECK_NAME, endpoint: new URL(BASE_URL).host }] } },
  });
  expect(canary.status(), await canary.text()).toBeLessThan(300);
  await onAgent.dispose();

  // pushed upstream: the health page, tabbed by agent (the sign-in page first loaded with the time a busy machine takes)
  await page.goto('/login');
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible({ timeout: 60_000 });
  await signIn(page, undefined, undefined, `/health?tabBy=agent&hidePassing=false&query=${CHECK_NAME}`);
  await expect(page.getByText(`Agent ${AGENT_NAME}`).first()).toBeVisible({ timeout: 60_000 });
  const tabs = page.getByRole('tablist', { name: 'Tabs by Agent' });
  await expect(tabs.getByRole('tab', { name: new RegExp(`^${AGENT_NAME} \\(1\\)`) })).toBeVisible();

  // and the agent is Online on the Agents page
  await page.goto(`/agents`);
  const row = page.getByRole('row').filter({ hasText: AGENT_NAME });
  await expect(row).toContainText('Online', { timeout: 30_000 });
});
