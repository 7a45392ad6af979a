/**
 * `pods/portforward` sessions (connect.ts accepts them): kubectl's SPDY/3.1 session inside the WebSocket (spdy.ts),
 * an error stream and a data stream per forwarded connection (client-go tools/portforward: the client opens the error
 * stream first, then the data stream, both with headers `streamType`, `port` and `requestID`; it reads the error
 * stream to its end once the data stream is done).
 */
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import { SpdyServerSession, type SpdyStream } from './spdy.js';
import type { ExecRecord } from './types.js';

/** Where a port-forward's SPDY session runs: inside a WebSocket (kubectl's default), or on the upgraded connection. */
export interface ByteTransport {
  send(data: Buffer): void;
  onData(fn: (data: Buffer) => void): void;
  onClose(fn: () => void): void;
  kill(): void;
}

export function wsTransport(ws: WebSocket): ByteTransport {
  ws.on('error', () => ws.terminate());
  return {
    send: (data) => ws.readyState === ws.OPEN && ws.send(data, { binary: true }),
    onData: (fn) => ws.on('message', (msg: RawData) => fn(Array.isArray(msg) ? Buffer.concat(msg) : Buffer.from(msg as ArrayBuffer))),
    onClose: (fn) => ws.on('close', fn),
    kill: () => ws.terminate(),
  };
}

export function socketTransport(socket: Duplex): ByteTransport {
  socket.on('error', () => socket.destroy());
  return {
    send: (data) => !socket.destroyed && socket.write(data),
    onData: (fn) => socket.on('data', fn),
    onClose: (fn) => socket.on('close', fn),
    kill: () => socket.destroy(),
  };
}

/** One port-forward session: SPDY, an error and a data stream per forwarded connection (`requestid`). */
export function servePortForward(transport: ByteTransport, record: ExecRecord, ports: number[]): void {
  const pairs = new Map<string, { error?: SpdyStream; data?: SpdyStream }>();
  const spdy = new SpdyServerSession(
    (frame) => transport.send(frame),
    (stream) => {
      const id = stream.headers.get('requestid') ?? '';
      const pair = pairs.get(id) ?? {};
      pairs.set(id, pair);
      if (stream.headers.get('streamtype') === 'error') pair.error = stream;
      else if (stream.headers.get('streamtype') === 'data') pair.data = stream;
      else return stream.end();
      const { error, data } = pair;
      if (!error || !data) return; // the client opens the error stream first, then the data stream
      const port = Number(data.headers.get('port'));
      record.ports!.push(port);
      const done = () => {
        data.end();
        error.end();
        pairs.delete(id);
      };
      if (!ports.includes(port)) {
        error.write(Buffer.from(`error forwarding port ${port} to pod ${record.pod}, uid : failed to connect to localhost:${port} inside namespace "${record.namespace}": connection refused`));
        return done();
      }
      // the stand-in server on the port: an echo
      data.onData((chunk) => data.write(chunk));
      data.onEnd(done);
    },
    () => transport.kill(),
  );
  transport.onData((d) => spdy.receive(d));
  transport.onClose(() => spdy.close());
}
