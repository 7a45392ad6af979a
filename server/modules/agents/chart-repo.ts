import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { stringify } from 'yaml';
import type { AgentInstallInfo } from '../../contracts/agent-install.js';
import type { Config } from '../../config.js';
import { ApiError, NotFoundError } from '../../lib/errors.js';
import { requireFeature } from '../auth/features.js';
import { DEFAULT_CHART_DIR, packagedChart, repositoryIndex, type PackagedChart } from './chart-package.js';

export interface ChartRepoOptions {
  config: Config;
  /** The chart directory to serve; defaults to the repository's chart/. */
  chartDir?: string;
}

export const CHART_REPO_PATH = '/api/agent/charts';

/**
 * The console as a Helm chart repository for agents (issue 16 "Installation Instructions"):
 * `GET /api/agent/charts/index.yaml` and `GET /api/agent/charts/<name>-<version>.tgz`, public because `helm repo add`
 * and Flux's HelmRepository send no credentials (the chart is this project's open-source chart and holds no secret;
 * the token travels in the install command, never in the repository). Served whether or not the agents feature is
 * disabled, so installed agents keep reconciling. When AGENT_CHART_REPO names another repository, both answer 404
 * naming it and the install snippets point there instead.
 * `GET /api/agent/install` (agents read): the upstream and repository the dialog's snippets use.
 */
export const chartRepoRoutes: FastifyPluginAsync<ChartRepoOptions> = async (app, opts) => {
  const { config } = opts;
  const chartDir = opts.chartDir ?? DEFAULT_CHART_DIR;
  const external = config.AGENT_CHART_REPO?.replace(/\/+$/, '');

  /** PUBLIC_URL when configured; else the address the client used (the default localhost:PORT is rarely it). */
  const origin = (req: FastifyRequest) => (config.PUBLIC_URL ? config.publicUrl : `${req.protocol}://${req.host}`);
  const served = () => {
    if (external) throw new ApiError(404, 'not_found', `this console does not serve charts: AGENT_CHART_REPO is ${external}`);
  };

  app.get(`${CHART_REPO_PATH}/index.yaml`, { config: { access: 'public' } }, async (req, reply) => {
    served();
    const chart = await packagedChart(chartDir);
    const index = stringify(repositoryIndex(chart, `${origin(req)}${CHART_REPO_PATH}`));
    return reply.type('application/x-yaml').header('cache-control', 'no-cache').send(index);
  });

  app.get<{ Params: { file: string } }>(`${CHART_REPO_PATH}/:file`, { config: { access: 'public' } }, async (req, reply) => {
    served();
    const chart = await packagedChart(chartDir);
    if (req.params.file !== chart.fileName) throw new NotFoundError('chart archive', req.params.file);
    return reply.type('application/gzip').header('cache-control', 'public, max-age=300').header('etag', `"${chart.digest}"`).send(chart.tgz);
  });

  app.get('/api/agent/install', { config: { access: { resource: 'agents', action: 'read' } } }, async (req): Promise<AgentInstallInfo> => {
    await requireFeature(app.db, 'agents');
    return installInfo(config, await packagedChart(chartDir), origin(req));
  });
};

/** The dialog's install facts: PUBLIC_URL (else the client's origin) and this console's repository or AGENT_CHART_REPO. */
export function installInfo(config: Config, chart: PackagedChart, origin: string): AgentInstallInfo {
  const external = config.AGENT_CHART_REPO?.replace(/\/+$/, '');
  return {
    upstreamUrl: config.PUBLIC_URL ? config.publicUrl : origin,
    chartRepoUrl: external ?? `${config.PUBLIC_URL ? config.publicUrl : origin}${CHART_REPO_PATH}`,
    chartName: chart.metadata.name,
    chartVersion: external ? null : chart.metadata.version,
  };
}
