import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { AGENT_SCRAPER_SOURCE, ensureAgentScraper } from '../../server/modules/agent-runtime/kubernetes-scraper.js';
import { generateAgent } from '../../server/modules/agents/generate.js';
import { startKubeApi, type KubeApi } from '../support/kube-api/index.js';
import { kubectl } from '../support/kube-tools.js';
import { until } from '../support/poll.js';
import { createDatabase, startAgent, type AgentProcess } from './agent-support.js';
import { createTestApp, type TestContext } from './helpers.js';

/**
 * AGENT_KUBERNETES_SCRAPE / _INTERVAL (chart agent.kubernetes.*): the agent keeps one kubernetes scraper of its own,
 * the catalog scheduler runs it, and its cluster's items reach the upstream under the agent.
 */

describe('the agent\'s kubernetes scraper row', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  const live = async () => (await t.db.query(
    'SELECT name, spec FROM config_scrapers WHERE source = $1 AND deleted_at IS NULL', [AGENT_SCRAPER_SOURCE])).rows;

  it('is created once, updated when the interval changes, soft-deleted when turned off', async () => {
    const on = { enabled: true, interval: '30m', clusterName: 'edge' };
    expect(await ensureAgentScraper(t.db, on)).toBe('created');
    expect(await ensureAgentScraper(t.db, on)).toBe('unchanged');
    expect(await live()).toEqual([{ name: 'edge-kubernetes', spec: { schedule: '@every 30m', kubernetes: [{ clusterName: 'edge' }] } }]);
    expect(await ensureAgentScraper(t.db, { ...on, interval: '1h' })).toBe('updated');
    expect((await live())[0].spec.schedule).toBe('@every 1h');
    expect(await ensureAgentScraper(t.db, { ...on, enabled: false })).toBe('deleted');
    expect(await live()).toEqual([]);
    await expect(ensureAgentScraper(t.db, { ...on, interval: 'soon' })).rejects.toThrow();
  });

  it('the settings: off by default, 30m, a bad interval refused by name', () => {
    const c = loadConfig({ MODE: 'agent' });
    expect([c.AGENT_KUBERNETES_SCRAPE, c.AGENT_KUBERNETES_SCRAPE_INTERVAL]).toEqual([false, '30m']);
    expect(loadConfig({ AGENT_KUBERNETES_SCRAPE: 'true', AGENT_KUBERNETES_SCRAPE_INTERVAL: '1h30m' }).AGENT_KUBERNETES_SCRAPE_INTERVAL).toBe('1h30m');
    expect(() => loadConfig({ AGENT_KUBERNETES_SCRAPE_INTERVAL: 'often' })).toThrow(/AGENT_KUBERNETES_SCRAPE_INTERVAL/);
  });
});

describe('two processes: the agent scrapes its cluster into the upstream catalog', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  let upstream: TestContext;
  let kube: KubeApi;
  let dir: string;
  let agentDb: Awaited<ReturnType<typeof createDatabase>>;
  let agent: AgentProcess;
  let agentId: string;

  beforeAll(async () => {
    upstream = await createTestApp();
    await upstream.app.listen({ port: 0, host: '127.0.0.1' });
    const upstreamUrl = `http://127.0.0.1:${(upstream.app.server.address() as AddressInfo).port}`;
    const generated = await generateAgent(upstream.db, { name: 'edge-scrape', properties: {}, createdBy: null });
    agentId = generated.agent_id!;
    kube = await startKubeApi({ crdsDir: join(root, 'crds') });
    dir = mkdtempSync(join(tmpdir(), 'agent-scrape-'));
    const kubeconfig = kube.writeKubeconfig(join(dir, 'kubeconfig'));
    const applied = await kubectl(kubeconfig, ['apply', '-f', '-'], {
      input: 'apiVersion: v1\nkind: Namespace\nmetadata: { name: shop }\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: web-config, namespace: shop }\ndata: { mode: fast }\n',
    });
    expect(applied.code, applied.stderr).toBe(0);
    agentDb = await createDatabase();
    agent = await startAgent({
      DATABASE_URL: agentDb.url, DATA_DIR: join(dir, 'data'), KUBERNETES: 'auto', KUBECONFIG: kubeconfig, POD_NAME: 'edge-agent',
      UPSTREAM_URL: upstreamUrl, AGENT_TOKEN: generated.access_token, AGENT_NAME: 'edge-scrape',
      AGENT_KUBERNETES_SCRAPE: 'true', AGENT_KUBERNETES_SCRAPE_INTERVAL: '10m',
    });
  }, 180_000);
  afterAll(async () => {
    await agent?.stop();
    await agentDb?.drop();
    await upstream?.close();
    await kube?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the namespace and config map are in the upstream catalog as the agent\'s, under its scraper', async () => {
    const rows = await until(async () => {
      const { rows: found } = await upstream.db.query<{ type: string; name: string; scraper: string }>(
        `SELECT ci.type, ci.name, s.name AS scraper FROM config_items ci JOIN config_scrapers s ON s.id = ci.scraper_id
         WHERE ci.agent_id = $1 AND ci.name IN ('shop', 'web-config') ORDER BY ci.type`, [agentId]);
      return found.length === 2 ? found : undefined;
    }, 'the agent\'s scraped items upstream', 60_000);
    expect(rows).toEqual([
      { type: 'Kubernetes::ConfigMap', name: 'web-config', scraper: 'edge-scrape-kubernetes' },
      { type: 'Kubernetes::Namespace', name: 'shop', scraper: 'edge-scrape-kubernetes' },
    ]);
    const { rows: [scraper] } = await agentDb.pool.query(`SELECT spec FROM config_scrapers WHERE source = $1 AND deleted_at IS NULL`, [AGENT_SCRAPER_SOURCE]);
    expect(scraper.spec).toEqual({ schedule: '@every 10m', kubernetes: [{ clusterName: 'edge-scrape' }] });
  });
});
