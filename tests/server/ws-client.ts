import type { FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import { LiveMessage } from '../../server/contracts/events.js';

/** A test client of /api/ws that records every message. */
export interface LiveClient {
  socket: WebSocket;
  messages: LiveMessage[];
  /** The first message (already received or coming) that matches; rejects after `ms`. */
  next(match: (m: LiveMessage) => boolean, ms?: number): Promise<LiveMessage>;
  /** Resolves with the close code; rejects after `ms`. */
  closed(ms?: number): Promise<number>;
  close(): void;
}

/** Starts the app on a free local port (once) and returns its ws:// URL for /api/ws. */
export async function listen(app: FastifyInstance): Promise<string> {
  const [address] = app.addresses();
  const port = address && typeof address !== 'string' ? address.port : Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
  return `ws://127.0.0.1:${port}/api/ws`;
}

/** Opens a connection; resolves on the server's `ready`, rejects with `HTTP <status>` if the upgrade is refused. */
export function connectLive(url: string, headers: Record<string, string> = {}, ms = 5_000): Promise<LiveClient> {
  const { origin, ...rest } = headers;
  const socket = new WebSocket(url, { headers: rest, ...(origin && { origin }) });
  const messages: LiveMessage[] = [];
  const waiters = new Set<() => void>();
  let closeCode: number | null = null;
  socket.on('message', (data) => {
    messages.push(LiveMessage.parse(JSON.parse(String(data))));
    for (const w of waiters) w();
  });
  socket.on('close', (code) => {
    closeCode = code;
    for (const w of waiters) w();
  });

  const client: LiveClient = {
    socket,
    messages,
    next(match, wait = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(match);
          if (found) {
            done();
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no matching message within ${wait} ms; got ${JSON.stringify(messages)}`));
        }, wait);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    closed(wait = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (closeCode !== null) {
            done();
            resolve(closeCode);
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`not closed within ${wait} ms`));
        }, wait);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: () => socket.terminate(),
  };

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`no ready message within ${ms} ms`));
    }, ms);
    socket.on('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      socket.terminate();
      reject(new Error(`HTTP ${res.statusCode}`));
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    client.next((m) => m.type === 'ready', ms).then(
      () => {
        clearTimeout(timer);
        resolve(client);
      },
      () => undefined,
    );
  });
}
