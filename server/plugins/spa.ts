import { existsSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';

/** Where `vite build --config web/vite.config.ts` writes the bundle. */
export const WEB_DIST = fileURLToPath(new URL('../../dist/web', import.meta.url));

export interface SpaOptions {
  /** The built bundle; defaults to dist/web at the repository root. */
  root?: string;
}

/** Paths the SPA never answers: they belong to the API, the kube proxy and the probes. */
const NOT_SPA = /^\/(api|kubeproxy)(\/|$)|^\/(healthz|readyz|metrics)\/?$/;
/** Vite's content-hashed output: safe to cache for a year. */
const HASHED = /^\/assets\//;

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console</title></head>
<body style="font-family:system-ui,sans-serif;margin:3rem;color:#242424">
<h1>The web bundle is not built</h1>
<p>The API is running. Build the web application with <code>npm run build</code> (or start with <code>npm start</code>,
which builds it when missing), then reload this page.</p></body></html>`;

function acceptsHtml(headers: FastifyRequest['headers']): boolean {
  // browsers navigating always send text/html; API clients and probes (no Accept, or */*) keep JSON 404s
  return (headers.accept ?? '').includes('text/html');
}

/** The file under root that a URL path names, or null when there is none (never a path outside root). */
function fileFor(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const full = resolve(root, `.${decoded}`);
  if (full !== root && !full.startsWith(root + sep)) return null;
  try {
    return statSync(full).isFile() ? full.slice(root.length + 1) : null;
  } catch {
    return null;
  }
}

/**
 * Serves the React bundle with an SPA fallback: any GET outside /api, /kubeproxy and the probes that accepts HTML
 * gets index.html (no-cache), hashed assets are cached for a year. Register it last: it owns the `/*` GET route.
 * Without a built bundle the server still starts and answers HTML requests with a "not built" page.
 */
export const spaPlugin: FastifyPluginAsync<SpaOptions> = async (app, opts) => {
  const root = resolve(opts.root ?? WEB_DIST);
  const built = () => existsSync(resolve(root, 'index.html'));
  // registered even without a bundle, so one built while the server runs is served without a restart
  await app.register(fastifyStatic, { root, serve: false, suppressWarning: true });
  if (!built()) {
    app.log.warn(`web bundle not found in ${root}: the API works, the UI says it is not built (run npm run build)`);
  }

  /**
   * Decides in the router whether the SPA answers, so every other request stays unmatched: the error plugin's
   * JSON 404 and the metrics' "unmatched" label keep working for API paths, probes and stray files.
   */
  const answer = (req: { url?: string; headers: FastifyRequest['headers'] }): 'file' | 'index' | 'not-built' | 'no' => {
    const path = (req.url ?? '/').split('?')[0];
    if (NOT_SPA.test(path)) return 'no';
    if (!built()) return acceptsHtml(req.headers) ? 'not-built' : 'no';
    if (fileFor(root, path)) return 'file';
    // a missing hashed asset is a stale tab after a deploy: a 404, never index.html served as JavaScript
    if (HASHED.test(path) || !acceptsHtml(req.headers)) return 'no';
    return 'index';
  };
  app.addConstraintStrategy({
    name: 'spa',
    storage() {
      const handlers = new Map<string, unknown>();
      return { get: (k: string) => (handlers.get(k) ?? null) as never, set: (k: string, v: unknown) => void handlers.set(k, v) };
    },
    deriveConstraint: (req: { url?: string; headers: FastifyRequest['headers'] }) => (answer(req) === 'no' ? 'no' : 'yes'),
  });

  const sendIndex = (reply: FastifyReply) =>
    reply.header('cache-control', 'no-cache').sendFile('index.html', { cacheControl: false });

  app.get('/*', { constraints: { spa: 'yes' } }, async (req, reply) => {
    const path = req.url.split('?')[0];
    switch (answer(req)) {
      case 'not-built':
        return reply.status(503).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(NOT_BUILT);
      case 'file': {
        const file = fileFor(root, path)!;
        if (file === 'index.html') return sendIndex(reply);
        return HASHED.test(path)
          ? reply.sendFile(file, { maxAge: '365d', immutable: true })
          : reply.sendFile(file, { maxAge: '1h', immutable: false });
      }
      case 'index':
        return sendIndex(reply);
      default:
        return reply.callNotFound(); // the bundle went away between routing and now
    }
  });
};
