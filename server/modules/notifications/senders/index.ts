import type { DeliveryResult, DeliveryTarget, NotificationMessage } from '../types.js';
import { deliverWith, type DeliverOptions } from './deliver.js';
import { discord } from './discord.js';
import { email } from './email.js';
import { genericWebhook } from './generic_webhook.js';
import { googleChat } from './google_chat.js';
import { ifttt } from './ifttt.js';
import { matrix } from './matrix.js';
import { mattermost } from './mattermost.js';
import { ntfy } from './ntfy.js';
import { opsgenie } from './opsgenie.js';
import { pushbullet } from './pushbullet.js';
import { pushover } from './pushover.js';
import { rocketchat } from './rocketchat.js';
import { slack } from './slack.js';
import { teams } from './teams.js';
import { telegram } from './telegram.js';
import type { Sender } from './types.js';
import { zulipChat } from './zulip_chat.js';

/** The senders by notification type (server/contracts/notification-connections.ts), one line each. */
export const SENDERS: Record<string, Sender> = {
  discord,
  email,
  generic_webhook: genericWebhook,
  google_chat: googleChat,
  ifttt,
  matrix,
  mattermost,
  ntfy,
  opsgenie,
  pushbullet,
  pushover,
  rocketchat,
  slack,
  teams,
  telegram,
  zulip_chat: zulipChat,
};

/** Sends `message` to `target` (see deliverWith: 10 s per attempt, 4 attempts with backoff, per-host limits). */
export function deliver(target: DeliveryTarget, message: NotificationMessage, opts?: DeliverOptions): Promise<DeliveryResult> {
  return deliverWith(SENDERS, target, message, opts);
}

export type { DeliverOptions } from './deliver.js';
export { setPerHostLimit } from './http.js';
export { configureSenders, senderSettings, senderSettingsOf, type SenderSettings, type SmtpSettings } from './settings.js';
export { channelOf, maskUrl, resolveTarget, systemEmailTarget, type TargetRef } from './target.js';
