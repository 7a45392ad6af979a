/**
 * The server side of a SPDY/3.1 session, as much as `kubectl port-forward` needs: since v1.31 kubectl tunnels SPDY
 * inside a WebSocket (subprotocol `SPDY/3.1+portforward.k8s.io`, client-go tools/portforward/tunneling_dialer.go), the
 * raw SPDY bytes carried in binary messages. Frames (draft-mbelshe-httpbis-spdy-00 / SPDY/3): SYN_STREAM and
 * SYN_REPLY with zlib-compressed header blocks (one zlib context per direction, seeded with the SPDY/3 dictionary),
 * DATA with FIN, RST_STREAM, PING (echoed), GOAWAY; SETTINGS and WINDOW_UPDATE are read and ignored (client-go's
 * spdystream does no flow control of its own either).
 */
import zlib from 'node:zlib';

const SYN_STREAM = 1;
const SYN_REPLY = 2;
const RST_STREAM = 3;
const PING = 6;
const GOAWAY = 7;
const FLAG_FIN = 0x01;

/** The SPDY/3 header compression dictionary: length-prefixed common header words, then common values. */
function spdyDictionary(): Buffer {
  const words = [
    'options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding',
    'accept-language', 'accept-ranges', 'age', 'allow', 'authorization', 'cache-control', 'connection', 'content-base',
    'content-encoding', 'content-language', 'content-length', 'content-location', 'content-md5', 'content-range',
    'content-type', 'date', 'etag', 'expect', 'expires', 'from', 'host', 'if-match', 'if-modified-since',
    'if-none-match', 'if-range', 'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'pragma',
    'proxy-authenticate', 'proxy-authorization', 'range', 'referer', 'retry-after', 'server', 'te', 'trailer',
    'transfer-encoding', 'upgrade', 'user-agent', 'vary', 'via', 'warning', 'www-authenticate', 'method', 'get',
    'status', '200 OK', 'version', 'HTTP/1.1', 'url', 'public', 'set-cookie', 'keep-alive', 'origin',
  ];
  const tail = '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505'
    + '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized'
    + '403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable'
    + 'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT'
    + 'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,'
    + 'text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';
  const parts: Buffer[] = [];
  for (const w of words) {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(w.length);
    parts.push(len, Buffer.from(w));
  }
  parts.push(Buffer.from(tail));
  return Buffer.concat(parts); // 1423 bytes
}

const DICTIONARY = spdyDictionary();

/** A zlib stream that keeps its context across header blocks; each call ends with a sync flush. */
class ZContext {
  private readonly z: zlib.Inflate | zlib.Deflate;
  constructor(kind: 'inflate' | 'deflate') {
    this.z = kind === 'inflate' ? zlib.createInflate({ dictionary: DICTIONARY }) : zlib.createDeflate({ dictionary: DICTIONARY });
  }

  run(input: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      const onData = (c: Buffer) => chunks.push(c);
      const onError = (err: Error) => {
        this.z.off('data', onData);
        reject(err);
      };
      this.z.on('data', onData);
      this.z.once('error', onError);
      this.z.write(input);
      this.z.flush(zlib.constants.Z_SYNC_FLUSH, () => {
        this.z.off('data', onData);
        this.z.off('error', onError);
        resolve(Buffer.concat(chunks));
      });
    });
  }

  close(): void {
    this.z.destroy();
  }
}

function decodeHeaders(block: Buffer): Map<string, string> {
  const headers = new Map<string, string>();
  let at = 0;
  const count = block.readUInt32BE(at);
  at += 4;
  for (let i = 0; i < count; i++) {
    const nlen = block.readUInt32BE(at);
    const name = block.subarray(at + 4, at + 4 + nlen).toString('latin1');
    at += 4 + nlen;
    const vlen = block.readUInt32BE(at);
    const value = block.subarray(at + 4, at + 4 + vlen).toString('latin1');
    at += 4 + vlen;
    headers.set(name.toLowerCase(), value.split('\0')[0]);
  }
  return headers;
}

function encodeHeaders(headers: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  const n = Buffer.alloc(4);
  n.writeUInt32BE(Object.keys(headers).length);
  parts.push(n);
  for (const [k, v] of Object.entries(headers)) {
    for (const s of [k.toLowerCase(), v]) {
      const len = Buffer.alloc(4);
      len.writeUInt32BE(Buffer.byteLength(s));
      parts.push(len, Buffer.from(s));
    }
  }
  return Buffer.concat(parts);
}

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | 3, 0); // control bit, version 3
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(payload.length, 4);
  head[4] = flags;
  return Buffer.concat([head, payload]);
}

function dataFrame(streamId: number, flags: number, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head.writeUInt32BE(data.length, 4);
  head[4] = flags;
  return Buffer.concat([head, data]);
}

/** One stream the client opened: its headers, what it sends, and how to answer on it. */
export interface SpdyStream {
  id: number;
  headers: Map<string, string>;
  /** data frames from the client, in order */
  onData(fn: (data: Buffer) => void): void;
  /** the client half-closed (FIN) or reset the stream */
  onEnd(fn: () => void): void;
  write(data: Buffer): void;
  /** half-close our side (an empty DATA frame with FIN) */
  end(): void;
}

/**
 * A SPDY/3.1 server session over any byte transport (`send` out; feed what comes in to `receive`). `onStream` is
 * called for every SYN_STREAM once its SYN_REPLY has been sent.
 */
export class SpdyServerSession {
  private buffer = Buffer.alloc(0);
  private chain: Promise<void> = Promise.resolve();
  private readonly inflate = new ZContext('inflate');
  private readonly deflate = new ZContext('deflate');
  private readonly streams = new Map<number, { data: Array<(d: Buffer) => void>; end: Array<() => void>; ended: boolean; closed: boolean }>();
  private closed = false;

  constructor(
    private readonly send: (frame: Buffer) => void,
    private readonly onStream: (stream: SpdyStream) => void,
    private readonly onFatal: (err: Error) => void,
  ) {}

  receive(chunk: Buffer): void {
    if (this.closed) return;
    this.buffer = Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length >= 8) {
      const length = this.buffer.readUInt32BE(4) & 0xffffff;
      if (this.buffer.length < 8 + length) break;
      const frame = this.buffer.subarray(0, 8 + length);
      this.buffer = this.buffer.subarray(8 + length);
      // header blocks share one zlib context: frames are handled strictly in order
      this.chain = this.chain.then(() => this.handle(frame)).catch((err) => {
        this.close();
        this.onFatal(err as Error);
      });
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.inflate.close();
    this.deflate.close();
    for (const s of this.streams.values()) if (!s.ended) s.end.forEach((fn) => fn());
    this.streams.clear();
  }

  private async handle(frame: Buffer): Promise<void> {
    const control = (frame[0] & 0x80) !== 0;
    const flags = frame[4];
    const payload = frame.subarray(8);
    if (!control) {
      const id = frame.readUInt32BE(0) & 0x7fffffff;
      const s = this.streams.get(id);
      if (!s || s.ended) return;
      if (payload.length) s.data.forEach((fn) => fn(Buffer.from(payload)));
      if (flags & FLAG_FIN) this.ended(id);
      return;
    }
    const type = frame.readUInt16BE(2);
    if (type === SYN_STREAM) {
      const id = payload.readUInt32BE(0) & 0x7fffffff;
      const headers = decodeHeaders(await this.inflate.run(payload.subarray(10)));
      const entry = { data: [] as Array<(d: Buffer) => void>, end: [] as Array<() => void>, ended: false, closed: false };
      this.streams.set(id, entry);
      const idBytes = Buffer.alloc(4);
      idBytes.writeUInt32BE(id);
      this.send(controlFrame(SYN_REPLY, 0, Buffer.concat([idBytes, await this.deflate.run(encodeHeaders({}))])));
      this.onStream({
        id,
        headers,
        onData: (fn) => entry.data.push(fn),
        onEnd: (fn) => entry.end.push(fn),
        write: (data) => {
          if (!entry.closed && !this.closed) this.send(dataFrame(id, 0, data));
        },
        end: () => {
          if (entry.closed || this.closed) return;
          entry.closed = true;
          this.send(dataFrame(id, FLAG_FIN, Buffer.alloc(0)));
        },
      });
      if (flags & FLAG_FIN) this.ended(id);
    } else if (type === RST_STREAM) {
      const id = payload.readUInt32BE(0) & 0x7fffffff;
      const s = this.streams.get(id);
      if (s) s.closed = true;
      this.ended(id);
    } else if (type === PING) {
      this.send(controlFrame(PING, 0, Buffer.from(payload)));
    } else if (type === GOAWAY) {
      this.close();
    }
    // SETTINGS, WINDOW_UPDATE, HEADERS: nothing to do here
  }

  private ended(id: number): void {
    const s = this.streams.get(id);
    if (!s || s.ended) return;
    s.ended = true;
    s.end.forEach((fn) => fn());
  }
}
