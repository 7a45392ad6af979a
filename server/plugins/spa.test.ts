import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsPlugin } from './errors.js';
import { spaPlugin } from './spa.js';

const html = { accept: 'text/html,application/xhtml+xml' };

async function appFor(root: string): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  await app.register(errorsPlugin);
  app.get('/api/about', async () => ({ ok: true }));
  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.register(spaPlugin, { root });
  return app;
}

describe('spa plugin with a built bundle', () => {
  let dir: string;
  let app: FastifyInstance;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'spa-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><div id="root"></div>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
    writeFileSync(join(dir, 'favicon.svg'), '<svg/>');
    app = await appFor(dir);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers client routes that accept HTML with index.html, not cached', async () => {
    for (const url of ['/', '/health', '/catalog/abc/changes?x=1', '/index.html']) {
      const res = await app.inject({ url, headers: html });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toContain('id="root"');
    }
  });

  it('caches hashed assets for a year and other files briefly', async () => {
    const asset = await app.inject('/assets/index-abc123.js');
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const icon = await app.inject('/favicon.svg');
    expect(icon.headers['cache-control']).toBe('public, max-age=3600');
  });

  it('leaves the API, probes, missing assets and non-HTML requests to the JSON 404', async () => {
    for (const [url, headers] of [
      ['/api/nope', html], ['/api', html], ['/kubeproxy/api/v1', html], ['/metrics', html],
      ['/assets/gone-123.js', html], ['/wp-login.php', {}], ['/health', { accept: 'application/json' }],
    ] as const) {
      const res = await app.inject({ url, headers });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().code, url).toBe('not_found');
    }
    expect((await app.inject({ url: '/healthz', headers: html })).json()).toEqual({ status: 'ok' });
    expect((await app.inject({ url: '/api/about', headers: html })).json()).toEqual({ ok: true });
  });

  it('never serves a file outside the bundle', async () => {
    for (const url of ['/../package.json', '/%2e%2e/package.json', '/..%2f..%2fetc/passwd', '/assets/..%2f..%2fspa.test.ts']) {
      const res = await app.inject({ url, headers: html });
      expect(res.body, url).not.toContain('"name"');
      expect(res.body, url).not.toContain('root:');
    }
  });
});

describe('spa plugin without a bundle', () => {
  it('still starts, and says the bundle is not built', async () => {
    const app = await appFor(join(tmpdir(), 'no-such-bundle-dir'));
    const page = await app.inject({ url: '/', headers: html });
    expect(page.statusCode).toBe(503);
    expect(page.body).toContain('The web bundle is not built');
    expect((await app.inject('/api/about')).statusCode).toBe(200);
    expect((await app.inject('/favicon.svg')).statusCode).toBe(404);
    await app.close();
  });
});
