/**
 * The agent install path end to end (issue 16 "Chart"): the console serves chart/ as a Helm repository, the real helm
 * adds it, and the install dialog's Helm command, run by bash with `upgrade --install` replaced by `template`, renders
 * an agent; the dialog's Flux HelmRelease values (plus its Secret's token) render the same Deployment env.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { list as listTar } from 'tar';
import { parse, parseAllDocuments, stringify } from 'yaml';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { packagedChart } from '../../server/modules/agents/chart-package.js';
import { chartRepoRoutes, installInfo } from '../../server/modules/agents/chart-repo.js';
import { fluxObjects, helmCommand, type InstallSnippetOptions } from '../../web/src/features/agents/install-snippets.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from '../server/helpers.js';
import { helmPath } from '../support/kube-tools.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const chartMeta = parse(readFileSync(join(root, 'chart', 'Chart.yaml'), 'utf8')) as { name: string; version: string; appVersion: string };

type Json = Record<string, any>;
let ctx: TestContext;
let base: string;
let dir: string;
let helmEnv: NodeJS.ProcessEnv;
let helm: string;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    }).on('error', reject);
  });
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  ctx = await createTestApp({ PUBLIC_URL: base });
  await ctx.app.listen({ host: '127.0.0.1', port });
  helm = await helmPath();
  dir = mkdtempSync(join(tmpdir(), 'agent-chart-'));
  // `helm` on PATH for the dialog's command; helm's repositories and cache in the temp dir only
  mkdirSync(join(dir, 'bin'));
  symlinkSync(helm, join(dir, 'bin', 'helm'));
  helmEnv = {
    PATH: `${join(dir, 'bin')}:${process.env.PATH}`, HOME: dir,
    HELM_CACHE_HOME: join(dir, 'cache'), HELM_CONFIG_HOME: join(dir, 'config'), HELM_DATA_HOME: join(dir, 'data'),
  };
});

afterAll(async () => {
  await ctx?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const find = (docs: Json[], kind: string) => docs.filter((d) => d.kind === kind);
const deploymentEnv = (docs: Json[]) => find(docs, 'Deployment')[0].spec.template.spec.containers[0].env as Json[];
const envMap = (docs: Json[]) => Object.fromEntries(deploymentEnv(docs).map((e) => [e.name, e.value ?? e.valueFrom]));

describe('the console-served Helm repository', () => {
  it('index.yaml lists the chart with digest, created and an absolute archive URL; the archive is the chart, packaged', async () => {
    const res = await fetch(`${base}/api/agent/charts/index.yaml`); // no credentials: helm repo add sends none
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/yaml/);
    const index = parse(await res.text());
    expect(index.apiVersion).toBe('v1');
    const [entry] = index.entries[chartMeta.name];
    expect(entry).toMatchObject({ name: chartMeta.name, version: chartMeta.version, appVersion: chartMeta.appVersion, apiVersion: 'v2' });
    expect(new Date(entry.created).getTime()).not.toBeNaN();
    const fileName = `${chartMeta.name}-${chartMeta.version}.tgz`;
    expect(entry.urls).toEqual([`${base}/api/agent/charts/${fileName}`]);

    const tgz = Buffer.from(await (await fetch(entry.urls[0])).arrayBuffer());
    expect(createHash('sha256').update(tgz).digest('hex')).toBe(entry.digest);
    const again = Buffer.from(await (await fetch(entry.urls[0])).arrayBuffer());
    expect(again.equals(tgz)).toBe(true);
    const paths: string[] = [];
    const parser = listTar({ onReadEntry: (e) => paths.push(e.path) });
    await new Promise<void>((resolve, reject) => parser.on('end', resolve).on('error', reject).end(tgz));
    expect(paths.every((p) => p.startsWith(`${chartMeta.name}/`))).toBe(true);
    for (const f of ['Chart.yaml', 'values.yaml', 'values.schema.json', 'templates/deployment.yaml', 'templates/secrets.yaml']) {
      expect(paths).toContain(`${chartMeta.name}/${f}`);
    }
    expect(paths.some((p) => p.startsWith(`${chartMeta.name}/crds/`))).toBe(true);
    expect(paths).not.toContain(`${chartMeta.name}/.helmignore`);

    expect((await fetch(`${base}/api/agent/charts/${chartMeta.name}-9.9.9.tgz`)).status).toBe(404);
  });

  it('GET /api/agent/install: the upstream and repository for the dialog, signed-in only', async () => {
    expect((await ctx.app.inject({ method: 'GET', url: '/api/agent/install' })).statusCode).toBe(401);
    const admin = await makePerson(ctx.db, { roles: ['admin'] });
    const res = await ctx.app.inject({ method: 'GET', url: '/api/agent/install', headers: await sessionHeaders(ctx.db, admin.id) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      upstreamUrl: base, chartRepoUrl: `${base}/api/agent/charts`, chartName: chartMeta.name, chartVersion: chartMeta.version,
    });
    // agents read is every role's (a viewer too); agents.disable refuses it, the public repository stays up
    const viewer = await makePerson(ctx.db);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/agent/install', headers: await sessionHeaders(ctx.db, viewer.id) })).statusCode).toBe(200);
    await ctx.db.query(`INSERT INTO properties (name, value) VALUES ('agents.disable', 'true')`);
    try {
      const off = await ctx.app.inject({ method: 'GET', url: '/api/agent/install', headers: await sessionHeaders(ctx.db, admin.id) });
      expect(off.statusCode).toBe(403);
      expect((await fetch(`${base}/api/agent/charts/index.yaml`)).status).toBe(200);
    } finally {
      await ctx.db.query(`DELETE FROM properties WHERE name = 'agents.disable'`);
    }
  });
});

describe('AGENT_CHART_REPO names another repository', () => {
  it('this console serves no index or archive (404 naming it); the install facts point there, version unpinned', async () => {
    const config = loadConfig({ PUBLIC_URL: 'https://console.example.com', AGENT_CHART_REPO: 'https://charts.example.com/ops/' });
    const app = Fastify();
    await app.register(chartRepoRoutes, { config });
    try {
      const index = await app.inject({ method: 'GET', url: '/api/agent/charts/index.yaml' });
      expect(index.statusCode).toBe(404);
      expect(index.json().message).toContain('https://charts.example.com/ops');
      expect((await app.inject({ method: 'GET', url: `/api/agent/charts/${chartMeta.name}-${chartMeta.version}.tgz` })).statusCode).toBe(404);
    } finally {
      await app.close();
    }
    expect(installInfo(config, await packagedChart(), 'http://ignored')).toEqual({
      upstreamUrl: 'https://console.example.com', chartRepoUrl: 'https://charts.example.com/ops', chartName: chartMeta.name, chartVersion: null,
    });
    // without PUBLIC_URL: the address the client used
    expect(installInfo(loadConfig({}), await packagedChart(), 'http://10.0.0.5:8080')).toMatchObject({
      upstreamUrl: 'http://10.0.0.5:8080', chartRepoUrl: 'http://10.0.0.5:8080/api/agent/charts', chartVersion: chartMeta.version,
    });
  });
});

describe('the dialog\'s snippets render an agent from the console-served repository (real helm)', () => {
  const marker = () => join(dir, 'pwned');
  let opts: InstallSnippetOptions;
  let helmDocs: Json[];

  beforeAll(async () => {
    const admin = await makePerson(ctx.db, { roles: ['admin'] });
    const info = (await ctx.app.inject({ method: 'GET', url: '/api/agent/install', headers: await sessionHeaders(ctx.db, admin.id) })).json();
    opts = {
      ...info,
      // quotes, $() and backticks stay literal; `,` `\` `{` survive Helm's --set parser
      name: `a'b $(touch ${marker()}) \`touch ${marker()}\` "c",x={y}\\z`,
      token: 'tok.0123456789abcdef',
      kubernetes: { enabled: true, scrapeInterval: '1h' },
      telemetry: { enabled: true, topologyName: 'prod "eu"' },
    };
  });

  it('helm repo add + update + the install command as `helm template`, through bash: MODE=agent, UPSTREAM_URL, AGENT_NAME, the token Secret', async () => {
    const cmd = helmCommand(opts);
    expect(cmd).toContain('helm upgrade --install ');
    const script = cmd.replace('helm upgrade --install ', 'helm template ');
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: dir, env: helmEnv, maxBuffer: 32 * 1024 * 1024 });
    expect(existsSync(marker())).toBe(false);
    helmDocs = parseAllDocuments(stdout.slice(stdout.indexOf('---\n# Source'))).map((d) => d.toJS()).filter(Boolean);

    const env = envMap(helmDocs);
    expect(env.MODE).toBe('agent');
    expect(env.UPSTREAM_URL).toBe(base);
    expect(env.AGENT_NAME).toBe(opts.name);
    expect(env.AGENT_KUBERNETES_SCRAPE).toBe('true');
    expect(env.AGENT_KUBERNETES_SCRAPE_INTERVAL).toBe('1h');
    expect(env.AGENT_PUSH_TELEMETRY).toBe('true');
    expect(env.AGENT_TOPOLOGY_NAME).toBe('prod "eu"');
    const ref = env.AGENT_TOKEN.secretKeyRef;
    const secret = find(helmDocs, 'Secret').find((s) => s.metadata.name === ref.name);
    expect(secret?.metadata.namespace).toBe('ops-console-agent');
    expect(Buffer.from(secret!.data[ref.key], 'base64').toString()).toBe(opts.token);
    expect(JSON.stringify(find(helmDocs, 'Deployment'))).not.toContain(opts.token);
  });

  it('the Flux HelmRelease values with the Secret\'s token, rendered with helm template -f, give the same Deployment env', async () => {
    expect(helmDocs, 'the Helm CLI test ran').toBeDefined();
    const [, secret, repo, release] = fluxObjects(opts) as Json[];
    expect(repo.spec.url).toBe(`${base}/api/agent/charts`);
    const from = release.spec.valuesFrom[0];
    expect(from).toMatchObject({ kind: 'Secret', name: secret.metadata.name, targetPath: 'agent.token' });
    const values = structuredClone(release.spec.values);
    values.agent.token = secret.stringData[from.valuesKey];
    writeFileSync(join(dir, 'values.yaml'), stringify(values));
    const chart = release.spec.chart.spec;
    const { stdout } = await run(helm, [
      'template', release.spec.releaseName, `${chart.sourceRef.name}/${chart.chart}`, '--version', chart.version,
      '-n', release.metadata.namespace, '-f', join(dir, 'values.yaml'),
    ], { cwd: dir, env: helmEnv, maxBuffer: 32 * 1024 * 1024 });
    const fluxDocs = parseAllDocuments(stdout).map((d) => d.toJS()).filter(Boolean);
    expect(deploymentEnv(fluxDocs)).toEqual(deploymentEnv(helmDocs));
    const secrets = (docs: Json[]) => find(docs, 'Secret').filter((s) => !s.metadata.name.endsWith('-admin')).map((s) => [s.metadata.name, s.data]);
    expect(secrets(fluxDocs)).toEqual(secrets(helmDocs));
  });
});

describe('chart values for agent mode (helm template of chart/)', () => {
  const render = async (sets: string[]) => {
    try {
      const { stdout } = await run(helm, ['template', 'ops', join(root, 'chart'), '-n', 'ops', ...sets.flatMap((s) => ['--set', s])], { env: helmEnv });
      return { docs: parseAllDocuments(stdout).map((d) => d.toJS()).filter(Boolean) as Json[], error: '' };
    } catch (err) {
      return { docs: [], error: String((err as { stderr?: string }).stderr ?? err) };
    }
  };

  it('an existing Secret instead of agent.token; no token at all is refused; console mode ignores agent values', async () => {
    const [existing, noToken, badInterval, consoleMode] = await Promise.all([
      render(['mode=agent', 'agent.upstreamUrl=https://up.example', 'agent.tokenSecret=mine', 'agent.tokenKey=t', 'agent.kubernetes.enabled=false']),
      render(['mode=agent', 'agent.upstreamUrl=https://up.example']),
      render(['mode=agent', 'agent.upstreamUrl=https://up.example', 'agent.token=x', 'agent.kubernetes.scrapeInterval=often']),
      render(['agent.token=x', 'agent.name=n']),
    ]);
    const env = envMap(existing.docs);
    expect(env.AGENT_TOKEN).toEqual({ secretKeyRef: { name: 'mine', key: 't' } });
    expect(env.AGENT_KUBERNETES_SCRAPE).toBe('false');
    expect(env).not.toHaveProperty('AGENT_KUBERNETES_SCRAPE_INTERVAL');
    expect(env).not.toHaveProperty('AGENT_NAME');
    expect(env.AGENT_PUSH_TELEMETRY).toBe('false');
    expect(find(existing.docs, 'Secret').map((s) => s.metadata.name)).toEqual(['ops-ops-console-admin']);

    expect(noToken.error).toMatch(/agent.token or agent.tokenSecret/);
    expect(badInterval.error).toMatch(/scrapeInterval/);
    expect(Object.keys(envMap(consoleMode.docs)).filter((k) => k.startsWith('AGENT_') || k === 'UPSTREAM_URL')).toEqual([]);
    expect(find(consoleMode.docs, 'Secret')).toHaveLength(1);
  });

  it('install notes name the upstream, the agent and where to look when it stays Offline', async () => {
    const { stdout } = await run(helm, ['install', 'ops', join(root, 'chart'), '-n', 'ops', '--dry-run=client', '--set', 'mode=agent',
      '--set', 'agent.upstreamUrl=https://up.example', '--set', 'agent.token=x', '--set', 'agent.name=eu-west'], { env: helmEnv });
    expect(stdout).toContain('pushed to https://up.example as agent "eu-west"');
    expect(stdout).toContain('https://up.example/agents');
    expect(stdout).toContain('kubectl -n ops logs deployment/ops-ops-console');
  });
});
