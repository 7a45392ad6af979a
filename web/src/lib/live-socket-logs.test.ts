import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import { WebSocket as WsClient, WebSocketServer, type WebSocket as ServerSocket } from 'ws';

/**
 * The run-log watch over a real WebSocket on loopback (the `ws` client stands in for the browser's WebSocket, which
 * Node 20 lacks): `watch` is sent once the socket is ready, lines reach the run's listeners, a reconnect re-sends
 * the watch with `since` (the last seq per action), and the socket state drives the pages' polling fallback.
 */
let server: WebSocketServer;
const received: Array<Record<string, unknown>> = [];
const sockets: ServerSocket[] = [];

beforeAll(async () => {
  server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  server.on('connection', (socket) => {
    sockets.push(socket);
    socket.on('message', (data) => received.push(JSON.parse(String(data))));
    socket.send(JSON.stringify({ type: 'ready', at: new Date().toISOString() }));
  });
  const { port } = server.address() as { port: number };
  (globalThis as Record<string, unknown>).window = { location: { protocol: 'http:', host: `127.0.0.1:${port}` } };
  (globalThis as Record<string, unknown>).WebSocket = WsClient;
});
afterAll(async () => {
  for (const s of sockets) s.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
};
const RUN = '0193f1a0-0000-7000-8000-000000000001';
const line = (seq: number) => ({ type: 'log', run_id: RUN, action_id: 'a1', seq, stream: 'stdout', text: `line ${seq}\n`, at: new Date().toISOString() });

describe('live socket: run log watch', () => {
  it('watches, delivers lines, resumes after a reconnect, and reports its state', async () => {
    const live = await import('./live-socket');
    const states: boolean[] = [];
    live.subscribeLiveSocketState(() => states.push(live.isLiveSocketUp()));
    const lines: number[] = [];
    const stop = live.watchRunLogs(RUN, (l) => lines.push(l.seq));
    const socket = new live.LiveSocket(new QueryClient());

    await until(() => received.some((m) => m.type === 'watch'), 'the watch');
    expect(received.find((m) => m.type === 'watch')).toEqual({ type: 'watch', run_id: RUN });
    expect(live.isLiveSocketUp()).toBe(true);

    sockets[0].send(JSON.stringify(line(0)));
    sockets[0].send(JSON.stringify(line(1)));
    sockets[0].send(JSON.stringify({ ...line(9), run_id: '0193f1a0-0000-7000-8000-000000000002' })); // another run's
    await until(() => lines.length === 2, 'two lines');
    expect(lines).toEqual([0, 1]);

    // the server drops the connection: down, then up again with the watch resumed after seq 1
    received.length = 0;
    sockets[0].terminate();
    await until(() => states.includes(false), 'the socket going down');
    await until(() => received.some((m) => m.type === 'watch'), 'the watch after the reconnect');
    expect(received.find((m) => m.type === 'watch')).toEqual({ type: 'watch', run_id: RUN, since: { a1: 1 } });
    expect(live.isLiveSocketUp()).toBe(true);

    stop();
    await until(() => received.some((m) => m.type === 'unwatch'), 'the unwatch');
    expect(received.find((m) => m.type === 'unwatch')).toEqual({ type: 'unwatch', run_id: RUN });
    socket.stop();
    expect(live.isLiveSocketUp()).toBe(false);
  });
});
