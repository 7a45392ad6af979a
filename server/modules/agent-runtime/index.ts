import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { agentSettingsProblem, type Config } from '../../config.js';
import type { AgentRuntimeStatus } from '../../contracts/agent-runtime.js';
import { ensureAgentScraper } from './kubernetes-scraper.js';
import { Pinger } from './pinger.js';
import { Puller } from './puller.js';
import { Pusher } from './pusher.js';
import { RuntimeState } from './status.js';
import { UpstreamClient } from './upstream-client.js';

/**
 * MODE=agent (issue 16): the outbox pusher (is_pushed = false rows to UPSTREAM_URL), the pinger with telemetry and
 * the canary puller, on the leader only (a lone agent always leads), as the health scheduler that fills the outbox.
 * GET /api/agent/status answers what they last did. Registered in agent mode only; refuses to start without
 * UPSTREAM_URL and AGENT_TOKEN (main.ts).
 */
export const agentRuntimeModule: FastifyPluginAsync<{ config: Config }> = fp(async (app: FastifyInstance, { config }: { config: Config }) => {
  // main.ts refuses to start such an agent; an app built without them (tests) runs no agent runtime
  const problem = agentSettingsProblem(config);
  if (problem) {
    app.log.warn(problem);
    return;
  }
  const client = new UpstreamClient({ url: config.UPSTREAM_URL!, token: config.AGENT_TOKEN!, agentName: config.AGENT_NAME });
  const log = app.log.child({ module: 'agent' });
  const state = new RuntimeState(client.base, log, app.hasDecorator('metrics') ? app.metrics : undefined);

  app.get('/api/agent/status', { config: { access: 'public' } }, async (): Promise<AgentRuntimeStatus> => state.status);

  let workers: Array<{ start(): void; stop(): Promise<void> }> | undefined;
  let change = Promise.resolve();
  let closing = false;
  const follow = (leads: boolean) => {
    change = change.then(async () => {
      if (leads && !workers && !closing) {
        workers = [
          new Pusher({
            db: app.db, client, state, log, intervalMs: config.AGENT_PUSH_INTERVAL_MS, backoffMaxMs: config.AGENT_BACKOFF_MAX_MS,
            bufferMax: config.AGENT_BUFFER_MAX_ROWS,
          }),
          new Pinger({
            client, state, intervalMs: config.AGENT_PING_INTERVAL_MS, telemetry: config.AGENT_PUSH_TELEMETRY,
            version: config.appVersion, topology: config.AGENT_TOPOLOGY_NAME,
          }),
          new Puller({ db: app.db, client, state, log, intervalMs: config.AGENT_PULL_INTERVAL_MS }),
        ];
        for (const w of workers) w.start();
        log.info({ upstream: client.base, agent: config.AGENT_NAME ?? null }, 'agent: pushing to the upstream');
        // AGENT_KUBERNETES_SCRAPE: the catalog's kubernetes scraper over this cluster, run by the catalog scheduler
        await ensureAgentScraper(app.db, {
          enabled: config.AGENT_KUBERNETES_SCRAPE, interval: config.AGENT_KUBERNETES_SCRAPE_INTERVAL,
          clusterName: config.AGENT_NAME || 'agent',
        }).then((outcome) => {
          if (outcome !== 'unchanged') log.info({ outcome, interval: config.AGENT_KUBERNETES_SCRAPE_INTERVAL }, 'agent: kubernetes scraper');
        }).catch((err) => log.error({ err }, 'agent: the kubernetes scraper (AGENT_KUBERNETES_SCRAPE) could not be set up'));
      } else if (!leads && workers) {
        const stopping = workers;
        workers = undefined;
        await Promise.all(stopping.map((w) => w.stop()));
      }
    }).catch((err) => log.error({ err }, 'agent: start/stop failed'));
    return change;
  };
  const leadership = app.hasDecorator('leadership') ? app.leadership : null;
  let off = () => {};
  app.addHook('onReady', async () => {
    off = leadership ? leadership.onChange(follow) : off;
    await follow(leadership ? leadership.isLeader() : true);
  });
  app.addHook('onClose', async () => {
    closing = true;
    off();
    await follow(false);
  });
}, { name: 'agent-runtime' });
