import helmet from '@fastify/helmet';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';

/**
 * Security headers on every response. The CSP allows only the console's own scripts; styles may be inline
 * (Fluent UI injects them at run time); workers may come from blob: URLs (editors start them that way); the page
 * may open WebSockets to any host (`ws:`/`wss:`, needed for /api/ws behind proxies); no one may frame it.
 */
export const securityPlugin = fp<{ config: Config }>(
  async (app, { config }) => {
    const https = config.publicUrl.startsWith('https:');
    await app.register(helmet, {
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
          frameAncestors: ["'none'"],
          // only behind https: on a plain-http install it would break every sub-resource
          ...(https && { upgradeInsecureRequests: [] }),
        },
      },
      // browsers ignore HSTS over http; sending it only behind https keeps plain-http installs honest
      strictTransportSecurity: https ? { maxAge: 15_552_000, includeSubDomains: false } : false,
      frameguard: { action: 'deny' },
      referrerPolicy: { policy: 'same-origin' },
      crossOriginEmbedderPolicy: false,
    });
  },
  { name: 'security' },
);
