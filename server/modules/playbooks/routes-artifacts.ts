import type { FastifyPluginAsync } from 'fastify';
import { NotFoundError } from '../../lib/errors.js';
import { parseId } from '../../lib/validation.js';

const READ_RUNS = { access: { resource: 'playbook_runs', action: 'read' } } as const;

/** Types a browser may show inline; anything else (HTML, SVG…) is sent as bytes. Every answer is an attachment. */
const SAFE_TYPES = new Set(['text/plain', 'text/csv', 'text/markdown', 'application/json', 'application/yaml', 'image/png', 'image/jpeg', 'application/pdf', 'application/gzip', 'application/zip', 'application/x-tar']);

/**
 * `GET /api/artifacts/download/{id}` (the reference's /artifacts/download/:id, linked from the run detail's action
 * panel): a playbook action's stored artifact (exec `artifacts`), for playbook_runs readers; 404 for an artifact
 * that is not a playbook action's, deleted or unknown. Sent as an attachment with nosniff, so a script's HTML is
 * never rendered on the console's origin.
 */
export const artifactRoutes: FastifyPluginAsync = async (app) => {
  app.get<{ Params: { id: string } }>('/api/artifacts/download/:id', { config: READ_RUNS }, async (req, reply) => {
    const id = parseId(req.params.id, 'artifact id');
    const { rows } = await app.db.query<{ filename: string; content_type: string | null; content: Buffer | null }>(
      `SELECT filename, content_type, content FROM artifacts
        WHERE id = $1 AND playbook_run_action_id IS NOT NULL AND deleted_at IS NULL`, [id]);
    const a = rows[0];
    if (!a || !a.content) throw new NotFoundError('artifact', id);
    const type = a.content_type && SAFE_TYPES.has(a.content_type) ? a.content_type : 'application/octet-stream';
    const ascii = a.filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
    return reply
      .header('content-type', type)
      .header('x-content-type-options', 'nosniff')
      .header('content-disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(a.filename)}`)
      .send(a.content);
  });
};
