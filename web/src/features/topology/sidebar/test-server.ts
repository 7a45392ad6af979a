import { vi } from 'vitest';

type Handler = (url: URL, init: RequestInit | undefined) => unknown;

/** A stub of the server for the sidebar's and dialogs' tests: routes by path, records every call. */
export function stubServer(routes: Record<string, Handler>) {
  const calls: { method: string; url: URL; body: unknown }[] = [];
  const fetch = vi.fn(async (input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://console.test');
    const method = init?.method ?? 'GET';
    calls.push({ method, url, body: init?.body ? JSON.parse(String(init.body)) : undefined });
    if (url.pathname === '/api/auth/csrf') return json({ csrf_token: 't' });
    const handler = routes[`${method} ${url.pathname}`];
    if (!handler) return json({ code: 'not_found', message: `no stub for ${method} ${url.pathname}` }, 404);
    const out = await handler(url, init);
    return out instanceof Response ? out : json(out);
  });
  vi.stubGlobal('fetch', fetch);
  return calls;
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}
