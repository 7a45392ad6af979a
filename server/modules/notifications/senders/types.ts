import type { FieldValues } from '../../../contracts/connection-fields.js';
import type { NotificationMessage } from '../types.js';
import type { HttpAnswer, HttpInit } from './http.js';

/** What one attempt of a sender gets: the target read, the message, and the HTTP client to call the service with. */
export interface SendContext {
  /** The target URL (secrets filled in). */
  url: URL;
  /** The URL's form values (server/contracts/notification-connections.ts), defaults applied. */
  values: FieldValues;
  message: NotificationMessage;
  /** The target's properties (a recipient's `to`, a rule's extra fields). */
  properties: Record<string, string>;
  /** The service's base URL: NOTIFICATION_ENDPOINTS' entry for the channel, else `publicBase`. No trailing slash. */
  base(publicBase: string): string;
  /** One request (per-host limited, the attempt's signal); throws SendError on a non-2xx answer. */
  http(url: string, init: HttpInit): Promise<HttpAnswer>;
  signal: AbortSignal;
  timeoutMs: number;
  /** Email attachments (other services ignore them). */
  attachments: Array<{ filename: string; content: string }>;
}

/** A service: sends one message, or throws (a SendError says whether another attempt may help). */
export interface Sender {
  send(ctx: SendContext): Promise<void>;
}

export const str = (v: FieldValues[string]): string => (v === undefined || v === null ? '' : String(v));
export const cut = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
