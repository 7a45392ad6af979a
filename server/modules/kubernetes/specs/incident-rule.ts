import { z } from 'zod';

/**
 * The IncidentRule spec (mission-control.flanksource.com/v1, mission-control's IncidentRuleSpec): which components a
 * rule matches, the incident it would open and who responds. Rules are stored, not yet evaluated. Known fields are
 * typed; the rest are kept, as for the other kinds.
 */

const Block = z.object({}).loose();
/** A Go time.Duration: nanoseconds as a number, or a duration string as written in YAML. */
const Duration = z.union([z.number().int(), z.string()]);

export const IncidentRuleSpec = z.object({
  name: z.string().optional(),
  components: z.array(Block).optional(),
  template: z.object({
    title: z.string().optional(),
    description: z.string().optional(),
    type: z.string().optional(),
    status: z.string().optional(),
    severity: z.string().optional(),
    created_by: z.string().optional(),
    commander_id: z.string().optional(),
    communicator_id: z.string().optional(),
  }).loose().optional(),
  filter: z.object({
    status: z.array(z.string()).optional(),
    severity: z.array(z.string()).optional(),
    category: z.array(z.string()).optional(),
    age: Duration.optional(),
  }).loose().optional(),
  autoAssignOwner: z.boolean().optional(),
  priority: z.number().int().optional(),
  breakOnMatch: z.boolean().optional(),
  hoursOfOperation: z.array(z.object({
    start: z.string().optional(),
    end: z.string().optional(),
    negate: z.boolean().optional(),
  }).loose()).optional(),
  autoClose: z.object({ timeout: Duration.optional() }).loose().optional(),
  autoResolve: z.object({ timeout: Duration.optional() }).loose().optional(),
  responders: z.object({
    email: z.array(Block).optional(),
    jira: z.array(Block).optional(),
    aws: z.array(Block).optional(),
    ams: z.array(Block).optional(),
    gcp: z.array(Block).optional(),
    servicenow: z.array(Block).optional(),
    slack: z.array(Block).optional(),
    teams: z.array(Block).optional(),
    teamsUser: z.array(Block).optional(),
    github: z.array(Block).optional(),
  }).loose().optional(),
}).loose();
