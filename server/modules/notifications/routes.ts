import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import {
  SendHistorySummaryRequest, SilencePreviewQuery, SilenceSaveRequest, TestSendRequest, type SendHistorySummaryResponse,
  type TestSendResponse,
} from '../../contracts/notifications.js';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import { notifyChange } from '../../lib/events.js';
import { parseBody, parseId } from '../../lib/validation.js';
import { normalizeSilence, problemsError, ruleWriter, silenceWriter } from './db-writers.js';
import { insertRow, sendHistoryById, SILENCE_COLUMNS } from './queries.js';
import { silencePreview } from './silences/preview.js';
import { sendHistorySummary } from './summary.js';
import { testSend } from './test-send.js';
import { validateSilence } from './validate.js';

const READ = { access: { resource: 'notifications', action: 'read' } } as const;
const WRITE = { access: { resource: 'notifications', action: 'write' } } as const;

const personOf = (req: FastifyRequest): string | undefined => req.principal?.id;

/**
 * /api/notification routes of part E (api.md "Notifications") and the /api/db writers of notifications and
 * notification_silences (validation, read-only CR rows):
 * - POST /api/notification/silence: a silence (source UI); from/until RFC 3339 or date math; 400 by path.
 * - GET  /api/notification/silence_preview?id=&type=&recursive=&filter=&selectors=<json>&limit=
 * - POST /api/notification/summary → {total, results}
 * - GET  /api/notification/send_history/:id → the row + resource, resource_kind, resource_type, body_markdown
 * - POST /api/notification/test: a rule as the form holds it, sent now for one resource (test-send.ts)
 */
export const notificationApiRoutes: FastifyPluginAsync<{ publicUrl: string }> = async (app, opts) => {
  if (app.hasDecorator('relationWriters')) {
    app.relationWriters.register('notifications', ruleWriter(app.db));
    app.relationWriters.register('notification_silences', silenceWriter(app.db));
  }

  app.post('/api/notification/silence', { config: WRITE }, async (req) => {
    const body = normalizeSilence(parseBody(SilenceSaveRequest, req.body));
    const problems = await validateSilence(app.db, body);
    if (problems.length) throw problemsError('notification silence', problems);
    const row = Object.fromEntries(Object.entries({ from: new Date(), ...body }).filter(([k, v]) =>
      (SILENCE_COLUMNS as readonly string[]).includes(k) && v !== undefined && !(typeof v === 'string' && v === '')));
    const id = await insertRow(app.db, 'notification_silences', { ...row, created_by: personOf(req) ?? null });
    await notifyChange(app.db, { relation: 'notification_silences', ids: [id] });
    return { id };
  });

  app.get('/api/notification/silence_preview', { config: READ }, async (req) => {
    const q = parseBody(SilencePreviewQuery, req.query);
    let selectors: unknown;
    if (q.selectors) {
      try {
        selectors = JSON.parse(q.selectors);
      } catch {
        throw new BadRequestError('selectors: expected JSON (a resource selector or a list of them)', { selectors: 'invalid JSON' });
      }
    }
    if (q.id) parseId(q.id, 'id');
    return silencePreview(app.db, { id: q.id, type: q.type, recursive: q.recursive === 'true', filter: q.filter, selectors }, q.limit);
  });

  app.post('/api/notification/summary', { config: READ }, async (req): Promise<SendHistorySummaryResponse> =>
    sendHistorySummary(app.db, parseBody(SendHistorySummaryRequest, req.body)));

  app.post('/api/notification/test', { config: WRITE }, async (req): Promise<TestSendResponse> =>
    testSend(app.db, parseBody(TestSendRequest, req.body), opts.publicUrl));

  app.get<{ Params: { id: string } }>('/api/notification/send_history/:id', { config: READ }, async (req) => {
    const id = parseId(req.params.id, 'send history id');
    const row = await sendHistoryById(app.db, id);
    if (!row) throw new NotFoundError('notification send history', id);
    return row;
  });
};
