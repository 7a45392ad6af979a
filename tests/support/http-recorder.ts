import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP server that records every request (method, path with query, headers, body) and answers as scripted
 * per path: a status and body, a delay, or a hang (never answers until closed). Unscripted paths answer 200 `{"ok":true}`
 * (Slack's API shape, which every other sender accepts too). Point NOTIFICATION_ENDPOINTS' services at `url`.
 */
export interface RecordedRequest {
  method: string;
  /** Path and query as sent (`/api/chat.postMessage`, `/hooks/abc?x=1`). */
  path: string;
  /** The path without the query. */
  pathname: string;
  query: Record<string, string>;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  body: string;
  /** The body parsed: JSON, or a form (`application/x-www-form-urlencoded`) as an object; else undefined. */
  json?: unknown;
  form?: Record<string, string>;
  at: number;
}

export interface ScriptedAnswer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Milliseconds before answering. */
  delayMs?: number;
  /** Never answer (the socket stays open until the client gives up or the recorder closes). */
  hang?: boolean;
  /** Answer this way only for the next `times` requests, then fall back to the next script or the default. */
  times?: number;
}

export interface HttpRecorder {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Scripts answers for a path (exact pathname, or a RegExp on it); later scripts for a path come after earlier ones. */
  script(path: string | RegExp, answer: ScriptedAnswer): void;
  /** The requests whose pathname equals `path` (or matches the RegExp). */
  on(path: string | RegExp): RecordedRequest[];
  /** Forgets requests and scripts. */
  clear(): void;
  close(): Promise<void>;
}

interface Script {
  path: string | RegExp;
  answer: ScriptedAnswer;
  left: number;
}

const matches = (p: string | RegExp, pathname: string) => (typeof p === 'string' ? p === pathname : p.test(pathname));

export async function startRecorder(): Promise<HttpRecorder> {
  const requests: RecordedRequest[] = [];
  let scripts: Script[] = [];
  const hanging = new Set<http.ServerResponse>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://recorder');
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
      const type = headers['content-type'] ?? '';
      let json: unknown;
      let form: Record<string, string> | undefined;
      if (type.includes('json')) {
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
      } else if (type.includes('x-www-form-urlencoded')) form = Object.fromEntries(new URLSearchParams(body));
      requests.push({
        method: req.method ?? 'GET', path: u.pathname + u.search, pathname: u.pathname, query: Object.fromEntries(u.searchParams),
        headers, body, json, form, at: Date.now(),
      });
      const script = scripts.find((s) => s.left > 0 && matches(s.path, u.pathname));
      if (script) script.left -= 1;
      const a = script?.answer ?? {};
      if (a.hang) {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const answer = () => {
        const status = a.status ?? 200;
        const payload = a.body === undefined ? { ok: true } : a.body;
        const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
        res.writeHead(status, { 'content-type': typeof payload === 'string' ? 'text/plain' : 'application/json', ...a.headers });
        res.end(text);
      };
      if (a.delayMs) setTimeout(answer, a.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    script(path, answer) {
      scripts.push({ path, answer, left: answer.times ?? Number.POSITIVE_INFINITY });
    },
    on: (path) => requests.filter((r) => matches(path, r.pathname)),
    clear() {
      requests.length = 0;
      scripts = [];
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
