import { z } from 'zod';

/**
 * `GET /api/agent/install` (agents read): what the install dialog's Helm and Flux snippets need besides the agent's
 * name and token. `chartVersion` is null when AGENT_CHART_REPO names another repository (the latest there is used).
 */
export const AgentInstallInfo = z.object({
  upstreamUrl: z.string(),
  chartRepoUrl: z.string(),
  chartName: z.string(),
  chartVersion: z.string().nullable(),
});
export type AgentInstallInfo = z.infer<typeof AgentInstallInfo>;
