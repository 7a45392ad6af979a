import { z } from 'zod';

/**
 * The playbook routes (`/api/playbook/*`, issue 14 "API"): request and response shapes, named as the reference
 * (reference/api.md "Playbooks"; mission-control's RunParams) so its clients keep working. Lists, run history and
 * approvals are read through /api/db (`playbook_runs`, `playbook_run_actions`, `playbook_approvals`, `playbook_names`,
 * `rpc/get_playbook_run_actions`); these routes are the ones that decide (match, validate, run, approve, cancel).
 *
 * Roles: reads need `playbooks:read` (every role); run, cancel and retry need `playbook_runs` write; approving also
 * needs the caller to be a listed approver (403). Feature flag `playbooks.disable` → every route here 404 (webhooks
 * excepted). Errors: `{error, message?}` ({@link PlaybookApiError}).
 */

/** Every error answer of these routes. */
export const PlaybookApiError = z.object({ error: z.string(), message: z.string().optional() });
export type PlaybookApiError = z.infer<typeof PlaybookApiError>;

/** Which resource a playbook runs on: at most one of the three (two or more → 400). */
export const PlaybookResourceRef = z.object({
  check_id: z.uuid().optional(),
  config_id: z.uuid().optional(),
  component_id: z.uuid().optional(),
});
export type PlaybookResourceRef = z.infer<typeof PlaybookResourceRef>;

/** `GET /api/playbook/list` query: with none, every runnable playbook; with one, those whose selectors match it. */
export const PlaybookListQuery = PlaybookResourceRef;
export type PlaybookListQuery = z.infer<typeof PlaybookListQuery>;

/**
 * One parameter as the run dialog draws it (the spec's `parameters[]` item; `default` rendered against the resource
 * by `/params`). `type` is one of the spec's parameter types (server/contracts/playbooks.ts); `properties` depends on
 * it (text: minLength, maxLength, min, max, regex, format, multiline; list: options[{label, value}]; code: language).
 */
export const PlaybookParameterView = z.looseObject({
  name: z.string(),
  label: z.string().optional(),
  default: z.unknown().optional(),
  required: z.boolean().optional(),
  icon: z.string().optional(),
  description: z.string().optional(),
  type: z.string().optional(),
  properties: z.record(z.string(), z.unknown()).optional(),
  dependsOn: z.array(z.string()).optional(),
});
export type PlaybookParameterView = z.infer<typeof PlaybookParameterView>;

/** One item of `GET /api/playbook/list` (the playbooks row, with the spec's parameters lifted). */
export const PlaybookListItem = z.object({
  id: z.string(),
  name: z.string(),
  namespace: z.string().nullable().optional(),
  title: z.string().nullable().optional(),
  icon: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  category: z.string().nullable().optional(),
  source: z.string().nullable().optional(),
  created_at: z.string().nullable().optional(),
  parameters: z.array(PlaybookParameterView).optional(),
  spec: z.record(z.string(), z.unknown()).optional(),
});
export type PlaybookListItem = z.infer<typeof PlaybookListItem>;
export const PlaybookListResponse = z.array(PlaybookListItem);
export type PlaybookListResponse = z.infer<typeof PlaybookListResponse>;

/** `POST /api/playbook/{id}/params` body (the reference's RunParams; `id` comes from the path). */
export const PlaybookParamsRequest = PlaybookResourceRef;
export type PlaybookParamsRequest = z.infer<typeof PlaybookParamsRequest>;
export const PlaybookParamsResponse = z.object({ params: z.array(PlaybookParameterView) });
export type PlaybookParamsResponse = z.infer<typeof PlaybookParamsResponse>;

/**
 * Parameter values as the run dialog sends them. The reference sends strings (`"true"` for a checkbox); numbers,
 * booleans and string arrays are accepted too.
 */
export const PlaybookParamValues = z.record(
  z.string(),
  z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.null()]),
);
export type PlaybookParamValues = z.infer<typeof PlaybookParamValues>;

/** `POST /api/playbook/run` body. */
export const RunPlaybookRequest = PlaybookResourceRef.extend({
  id: z.uuid(),
  params: PlaybookParamValues.optional(),
  /** A webhook-like request object the templates see as `.request`. */
  request: z.record(z.string(), z.unknown()).optional(),
  /** Re-run of / child of this run. */
  parent_id: z.uuid().optional(),
  agent_id: z.uuid().optional(),
  notification_send_id: z.uuid().optional(),
});
export type RunPlaybookRequest = z.infer<typeof RunPlaybookRequest>;

/** 201 answer of `POST /api/playbook/run` and of `POST /api/playbook/run/{id}/retry`. */
export const RunPlaybookResponse = z.object({ run_id: z.string(), starts_at: z.string() });
export type RunPlaybookResponse = z.infer<typeof RunPlaybookResponse>;

/**
 * A `playbook_runs` row as these routes answer it. `parameters` of `secret` type are `"***"` in every read (here,
 * in /status and in /api/db/playbook_runs). `status`: pending_approval, scheduled, running, sleeping, waiting,
 * retrying, completed, failed, cancelled, timed_out.
 */
export const PlaybookRunView = z.looseObject({
  id: z.string(),
  playbook_id: z.string(),
  status: z.string(),
  spec: z.record(z.string(), z.unknown()).nullable().optional(),
  created_at: z.string(),
  start_time: z.string().nullable().optional(),
  scheduled_time: z.string().nullable().optional(),
  end_time: z.string().nullable().optional(),
  created_by: z.string().nullable().optional(),
  check_id: z.string().nullable().optional(),
  config_id: z.string().nullable().optional(),
  component_id: z.string().nullable().optional(),
  parameters: z.record(z.string(), z.unknown()).nullable().optional(),
  request: z.record(z.string(), z.unknown()).nullable().optional(),
  agent_id: z.string().nullable().optional(),
  parent_id: z.string().nullable().optional(),
  error: z.string().nullable().optional(),
});
export type PlaybookRunView = z.infer<typeof PlaybookRunView>;

/**
 * A `playbook_run_actions` row (`status`: scheduled, running, waiting, sleeping, skipped, completed, failed). The
 * lease columns are not answered.
 */
export const PlaybookRunActionView = z.looseObject({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  playbook_run_id: z.string(),
  retry_count: z.number().nullable().optional(),
  start_time: z.string().nullable().optional(),
  scheduled_time: z.string().nullable().optional(),
  end_time: z.string().nullable().optional(),
  result: z.unknown().optional(),
  agent_id: z.string().nullable().optional(),
  error: z.string().nullable().optional(),
});
export type PlaybookRunActionView = z.infer<typeof PlaybookRunActionView>;

/** `GET /api/playbook/run/{id}/status`. */
export const PlaybookRunStatusResponse = z.object({
  playbook: z.looseObject({ id: z.string(), name: z.string() }),
  run: PlaybookRunView,
  actions: z.array(PlaybookRunActionView),
});
export type PlaybookRunStatusResponse = z.infer<typeof PlaybookRunStatusResponse>;

/** `POST /api/playbook/run/cancel/{id}` → `{message: "playbook run cancelled"}`; approve → "playbook run approved". */
export const PlaybookRunMessage = z.object({ message: z.string() });
export type PlaybookRunMessage = z.infer<typeof PlaybookRunMessage>;

/** `POST /api/playbook/{id}/plan` body: what a run would get, without `id` (from the path). */
export const PlaybookPlanRequest = RunPlaybookRequest.omit({ id: true });
export type PlaybookPlanRequest = z.infer<typeof PlaybookPlanRequest>;

/** One action of a plan: its block rendered against the params and resource, secrets `***`. */
export const PlannedAction = z.object({
  name: z.string(),
  /** exec, http, sql, notification, pod, logs. */
  type: z.string(),
  /** The action's `if` as written, when it has one (evaluated at run time, against the results so far). */
  if: z.string().optional(),
  delay: z.string().optional(),
  /** The action's block with every template rendered (templates that read earlier actions' results stay as written). */
  rendered: z.unknown(),
  /** A template that could not be rendered before the run (e.g. it reads getAction): the message. */
  error: z.string().optional(),
});
export type PlannedAction = z.infer<typeof PlannedAction>;

/** `POST /api/playbook/{id}/plan` answer (200); invalid params or filters answer 400 as `/run` does. */
export const PlaybookPlanResponse = z.object({
  playbook: z.object({ id: z.string(), name: z.string(), title: z.string().nullable().optional() }),
  /** The params the run would get (defaults filled; secrets `***`). */
  params: z.record(z.string(), z.unknown()),
  actions: z.array(PlannedAction),
});
export type PlaybookPlanResponse = z.infer<typeof PlaybookPlanResponse>;
