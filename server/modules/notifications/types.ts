import type { EventResource, Q } from '../events/types.js';

/**
 * The notification pipeline's seams (issue 15). The pipeline (pipeline/) matches events to rules, expands recipients,
 * applies silences, repeat intervals, wait_for and dedupe, and calls:
 * - render/index.ts  `renderNotification(input): NotificationMessage` and `templateProblems(template): Problem[]`
 * - senders/index.ts `deliver(target, message, opts): Promise<DeliveryResult>`, `resolveTarget(db, ref): Promise<DeliveryTarget>`,
 *                    `channelOf(url): string`, `systemEmailTarget(db, to): Promise<DeliveryTarget | null>`
 * - silences/match.ts `findSilence(db, resource, at): Promise<{ id: string } | null>`
 * - validate.ts      `validateRule(db, body): Promise<Problem[]>`, `validateSilence(db, body): Promise<Problem[]>`
 */

/** A validation problem at a dotted path (`events[1]`, `custom_services[0].url`). */
export interface Problem {
  path: string;
  message: string;
}

/** What a message is, before a sender shapes it for its service. */
export interface NotificationMessage {
  title: string;
  /** The body as markdown (stored as the history row's body). */
  markdown: string;
  /** Plain text (email text part, SMS-like services). */
  text: string;
  /** Email HTML (marked, escaped: no raw HTML from resource fields). */
  html: string;
  /** Slack blocks and fallback text, when the channel is slack. */
  slack?: { text: string; blocks: unknown[] };
  /** A Teams message card / adaptive card payload, when the channel is teams. */
  teams?: Record<string, unknown>;
}

export interface RenderInput {
  eventName: string;
  resource: EventResource;
  rule: { title: string | null; template: string | null; properties?: Record<string, string> | null };
  /** The sender's service name (slack, email, teams, discord, generic_webhook…), for `channel` in templates. */
  channel: string;
  /** PUBLIC_URL, prefixed to permalinks and silence links. */
  publicUrl: string;
  /** A digest: several resources of one rule and recipient (issue 15 "Beyond the reference"). */
  group?: EventResource[];
}

/** Where a message goes: a shoutrrr-style service URL (slack://…, smtp://…, generic+https://…) and its properties. */
export interface DeliveryTarget {
  url: string;
  properties?: Record<string, string>;
  connectionId?: string | null;
}

export interface DeliveryResult {
  ok: boolean;
  /** The service (slack, email…). */
  channel: string;
  error?: string;
  durationMs: number;
  attempts: number;
}

/** A recipient of a rule, as the history row records it (never with a secret). */
export interface Recipient {
  kind: 'person' | 'team' | 'custom';
  person_id?: string;
  team_id?: string;
  /** team spec.notifications / custom_services index */
  index?: number;
  connection?: string;
  /** masked */
  url?: string;
  email?: string;
}

export type { EventResource, Q };
