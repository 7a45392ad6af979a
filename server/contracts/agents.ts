import { z } from 'zod';

/** Agents (issue 16): generating an agent and its token, editing its properties (api.md "Agents"). */

/** The all-zero id of the local agent: every installation has it; it is never edited or deleted. */
export const LOCAL_AGENT_ID = '00000000-0000-0000-0000-000000000000';

/** Longest agent name (it goes into Helm values, Secret names' labels and URLs). */
export const AGENT_NAME_MAX = 255;

// C0 and C1 control characters, DEL: an agent name ends up in shell snippets, YAML and HTTP query strings
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** An agent name: required, at most 255 characters, no control characters. */
export const AgentName = z
  .string({ message: 'name is required' })
  .refine((s) => s.trim().length > 0, { message: 'name is required' })
  .refine((s) => s.length <= AGENT_NAME_MAX, { message: `name: at most ${AGENT_NAME_MAX} characters` })
  .refine((s) => !CONTROL.test(s), { message: 'name: control characters are not allowed' });

/**
 * Agent properties (labels merged into what it pushes): string values only. A non-string value is refused naming
 * `properties.<key>`.
 */
export const AgentProperties = z.record(z.string(), z.unknown()).superRefine((props, ctx) => {
  for (const [key, value] of Object.entries(props)) {
    if (key.trim() === '') ctx.addIssue({ code: 'custom', path: [key], message: 'properties: a key is empty' });
    else if (typeof value !== 'string') ctx.addIssue({ code: 'custom', path: [key], message: `properties.${key}: must be a string` });
  }
}).transform((p) => p as Record<string, string>);
export type AgentProperties = z.infer<typeof AgentProperties>;

/** POST /api/agent/generate */
export const GenerateAgentRequest = z.object({
  name: AgentName,
  properties: AgentProperties.nullish(),
  auto_renew: z.boolean().optional(),
});
export type GenerateAgentRequest = z.infer<typeof GenerateAgentRequest>;

/** 201 of POST /api/agent/generate and POST /api/agent/token: the token is shown this once. */
export const GenerateAgentResponse = z.object({
  /** The agent's person id (the reference's `id`). */
  id: z.string(),
  username: z.string(),
  access_token: z.string(),
  agent_id: z.string(),
});
export type GenerateAgentResponse = z.infer<typeof GenerateAgentResponse>;

/** POST /api/agent/token: a new token for an existing (live) agent, by name as the reference sends it. */
export const AgentTokenRequest = z.object({
  AgentName: z.string({ message: 'AgentName is required' }).min(1, { message: 'AgentName is required' }),
  auto_renew: z.boolean().optional(),
});
export type AgentTokenRequest = z.infer<typeof AgentTokenRequest>;

/** PATCH /api/db/agents?id=eq.{id}: properties only (deleted_at + cleanup delete it). */
export const AgentPatch = z.object({ properties: AgentProperties.nullable() }).partial();
export type AgentPatch = z.infer<typeof AgentPatch>;
