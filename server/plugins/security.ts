import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';
import type { Config } from '../config.js';

/** The bare pages (web/src/app/paths.ts `/view/...`) a same-origin page may put in an iframe. */
const EMBEDDABLE = '/view/';

/**
 * Security headers on every response. The CSP allows only the console's own scripts; styles may be inline
 * (Fluent UI injects them at run time); workers may come from blob: URLs (editors start them that way); the page
 * may open WebSockets to any host (`ws:`/`wss:`, needed for /api/ws behind proxies); no one may frame it, except the
 * bare `/view/…` pages (a topology card alone), which pages of the same origin may embed.
 *
 * helmet's middleware is built once here and applied in an onRequest hook. @fastify/helmet 13 rebuilt it (parsing
 * and validating every directive) on every request: 13–23 µs of the event loop a call, about a twentieth of a
 * whoami's server CPU, for headers that never change (no per-route options, no nonces).
 */
export const securityPlugin = fp<{ config: Config }>(
  async (app, { config }) => {
    const https = config.publicUrl.startsWith('https:');
    const options = (frameAncestors: string): HelmetOptions => ({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:', 'blob:'],
          fontSrc: ["'self'", 'data:'],
          connectSrc: ["'self'", 'ws:', 'wss:'],
          workerSrc: ["'self'", 'blob:'],
          objectSrc: ["'none'"],
          baseUri: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: [frameAncestors],
          // only behind https: on a plain-http install it would break every sub-resource
          ...(https && { upgradeInsecureRequests: [] }),
        },
      },
      // browsers ignore HSTS over http; sending it only behind https keeps plain-http installs honest
      strictTransportSecurity: https ? { maxAge: 15_552_000, includeSubDomains: false } : false,
      frameguard: { action: frameAncestors === "'self'" ? 'sameorigin' : 'deny' },
      referrerPolicy: { policy: 'same-origin' },
      crossOriginEmbedderPolicy: false,
    });
    const everywhere = helmet(options("'none'"));
    const embeddable = helmet(options("'self'"));
    app.addHook('onRequest', (request, reply, done) => {
      (request.url.startsWith(EMBEDDABLE) ? embeddable : everywhere)(request.raw, reply.raw, (err) => done(err as Error | undefined));
    });
  },
  { name: 'security' },
);
