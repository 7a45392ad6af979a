import { execAction } from './exec.js';
import { httpAction } from './http.js';
import { logsAction } from './logs.js';
import { notificationAction } from './notification.js';
import { podAction } from './pod.js';
import { sqlAction } from './sql.js';
import type { PlaybookActionType } from './types.js';

/**
 * The playbook action types the engine runs, one line per member (each in its own file with its test beside it).
 * Types the reference has but this console does not run (gitops, github, ai, prometheus, catalog, report,
 * azureDevopsPipeline) are refused when a spec is saved (server/contracts/playbooks.ts).
 */
const MEMBERS: PlaybookActionType[] = [
  execAction,
  httpAction,
  sqlAction,
  notificationAction,
  podAction,
  logsAction,
];

export const ACTION_TYPES: ReadonlyMap<string, PlaybookActionType> = new Map(MEMBERS.map((m) => [m.type, m]));
