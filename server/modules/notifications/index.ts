import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.js';
import { notificationCrStatusWriter } from './cr/status.js';
import { notificationPipeline } from './pipeline/plugin.js';
import { notificationApiRoutes } from './routes.js';
import { configureSenders, senderSettingsOf } from './senders/index.js';

/**
 * Notifications (issue 15): rules, silences, the send pipeline (event_queue handlers on every replica), senders,
 * templates, /api/notification routes and the Notification / NotificationSilence CR status. Each part registers
 * here, one line each. One register line in app.ts, after the events module.
 */
export const notificationsModule: FastifyPluginAsync<{ config: Config }> = async (_app, _opts) => {
  configureSenders(senderSettingsOf(_opts.config)); // senders: NOTIFICATION_ENDPOINTS, SMTP_*
  await _app.register(notificationPipeline, { config: _opts.config }); // the send pipeline: rules → recipients → sends
  await _app.register(notificationApiRoutes, { publicUrl: _opts.config.publicUrl }); // /api/notification silence, silence_preview, summary, send_history, test; /api/db writers
  notificationCrStatusWriter(_app, _opts); // Notification CRs' status from the send history (leader)
};
