import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ClusterConnection } from './cluster.js';
import {
  FORWARDED_REQUEST_HEADERS, HOP_BY_HOP, connectTimeout, requestApiServer, sendStatus, upstreamHeaders, upstreamPath, type KubeIdentity,
} from './proxy.js';

// The headers of an upgrade that belong to the protocol switched to (WebSocket, SPDY/3.1): the API server and
// kubectl negotiate the channel protocol end to end, the console only relays the bytes.
const UPGRADE_REQUEST_HEADERS = [
  'sec-websocket-key', 'sec-websocket-version', 'sec-websocket-protocol', 'sec-websocket-extensions',
  'x-stream-protocol-version',
];

/** Where a tunnel's lifecycle is reported (a request logger). */
export interface TunnelLog {
  info(obj: object, msg: string): void;
}

interface Tunnel {
  client: Duplex;
  upstream: http.ClientRequest;
  socket?: Duplex;
}

/**
 * Upgraded connections through /kubeproxy: `kubectl exec`, `attach`, `port-forward` and `cp`. Each one gets a
 * connection of its own to the API server (the console's credentials, the caller's impersonated identity); after the
 * API server's 101 the bytes are copied both ways and never read.
 */
export class KubeTunnels {
  private readonly base: URL;
  private readonly tunnels = new Set<Tunnel>();

  constructor(private readonly cluster: ClusterConnection) {
    this.base = new URL(cluster.server);
  }

  /**
   * Tunnels an upgrade request (`kubectl exec`/`attach`/`port-forward`, WebSocket or SPDY/3.1) to `<server><suffix>`
   * over a connection of its own. `socket` is the caller's connection, taken over from the HTTP server (no HTTP
   * parser on it any more), `head` what the caller sent after its request headers, `res` a response bound to
   * `socket` for answers that are not a switch of protocols.
   *
   * The API server's 101 (status line and headers as they came: Sec-WebSocket-Accept and the negotiated subprotocol
   * must reach the client unchanged) is relayed, then the two sockets are piped both ways; backpressure of each
   * pipe bounds what is buffered. Any other answer (403, 404, 400...) is relayed as an HTTP response and the
   * caller's connection closed after it.
   */
  async open(
    req: IncomingMessage, res: ServerResponse, socket: Duplex, head: Buffer, suffix: string, identity: KubeIdentity,
    log: TunnelLog,
  ): Promise<void> {
    const path = upstreamPath(this.base, suffix);
    const opts: https.RequestOptions = { headers: {} };
    const refuse = (code: number, reason: string, message: string) => {
      if (res.headersSent || socket.destroyed) return void socket.destroy();
      res.shouldKeepAlive = false;
      res.once('finish', () => socket.end());
      sendStatus(res, code, reason, message);
    };
    try {
      await this.cluster.kc.applyToHTTPSOptions(opts);
    } catch (err) {
      refuse(502, 'InternalError', `the console cannot use its Kubernetes credentials: ${(err as Error).message}`);
      return;
    }
    if (socket.destroyed) return; // the caller left while the credentials were read
    const headers = upstreamHeaders(req, opts, identity, [...FORWARDED_REQUEST_HEADERS, ...UPGRADE_REQUEST_HEADERS]);
    headers.connection = 'Upgrade';
    headers.upgrade = req.headers.upgrade;
    // an upgrade request has no body: Node frames the empty one itself (Content-Length: 0 on SPDY's POST), so no
    // framing header of the caller's can leave bytes between the request and the switched protocol
    for (const name of ['content-length', 'transfer-encoding', 'content-encoding']) delete headers[name];

    const proxied = !!this.cluster.kc.getCurrentCluster()?.proxyUrl && opts.agent;
    const upstream = requestApiServer(this.base, {
      method: req.method,
      path,
      headers,
      auth: opts.auth,
      // a connection of its own (an upgraded connection never returns to a pool); through client-node's agent when the
      // cluster is reached through an HTTP/SOCKS proxy
      agent: proxied ? opts.agent : false,
      ca: opts.ca, cert: opts.cert, key: opts.key,
      rejectUnauthorized: opts.rejectUnauthorized, servername: opts.servername,
    });
    const tunnel: Tunnel = { client: socket, upstream };
    this.tunnels.add(tunnel);
    const started = Date.now();
    // the API path without its query (the request's own log line has the URL, its token redacted)
    const where = { path: path.split('?', 1)[0], upgrade: String(req.headers.upgrade), identity: identity.user };
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      this.tunnels.delete(tunnel);
      socket.destroy();
      tunnel.socket?.destroy();
      upstream.destroy();
    };
    // the caller gone (before or after the switch, or once a refusal was relayed): nothing to relay to any more
    socket.on('error', close);
    socket.on('close', close);

    connectTimeout(upstream);
    upstream.on('upgrade', (answer: IncomingMessage, up: Duplex, upHead: Buffer) => {
      tunnel.socket = up;
      if (socket.destroyed || closed) return close();
      // the API server's 101 as it came (Sec-WebSocket-Accept, Sec-WebSocket-Protocol, X-Stream-Protocol-Version...)
      let lines = `HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? 'Switching Protocols'}\r\n`;
      for (let i = 0; i < answer.rawHeaders.length; i += 2) {
        if (answer.rawHeaders[i].toLowerCase() === 'set-cookie') continue;
        lines += `${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}\r\n`;
      }
      socket.write(`${lines}\r\n`);
      if (upHead.length) socket.write(upHead);
      if (head.length) up.write(head);
      for (const s of [socket, up]) {
        (s as Socket).setNoDelay?.(true);
        // a peer that vanished without a FIN (a laptop closed mid-session) is found by TCP keepalive, not held forever
        (s as Socket).setKeepAlive?.(true, 30_000);
        (s as Socket).setTimeout?.(0);
      }
      up.on('error', close);
      up.on('close', close);
      // pipe() applies backpressure both ways: a slow reader pauses the other side instead of filling memory
      socket.pipe(up);
      up.pipe(socket);
      const protocol = answer.headers['sec-websocket-protocol'] ?? answer.headers['x-stream-protocol-version'];
      log.info({ ...where, status: answer.statusCode, protocol }, 'kubeproxy: tunnel opened');
      up.once('close', () => log.info({
        ...where,
        durationMs: Date.now() - started,
        bytesFromClient: (socket as Socket).bytesRead, bytesToClient: (socket as Socket).bytesWritten,
      }, 'kubeproxy: tunnel closed'));
    });
    upstream.on('response', (answer) => {
      // refused (403), not found, not an upgrade the API server accepts (400): relayed as it came, then closed
      log.info({ ...where, status: answer.statusCode }, 'kubeproxy: upgrade refused by the API server');
      if (socket.destroyed) return close();
      const out: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      }
      res.shouldKeepAlive = false;
      res.writeHead(answer.statusCode ?? 502, out);
      answer.pipe(res);
      answer.on('error', close);
      res.once('finish', () => {
        this.tunnels.delete(tunnel);
        socket.end();
      });
    });
    upstream.on('error', (err) => {
      if (closed) return;
      if (tunnel.socket || res.headersSent) return close();
      this.tunnels.delete(tunnel);
      const why = (err as NodeJS.ErrnoException).code ?? err.message;
      refuse(502, 'InternalError', `the Kubernetes API server ${this.base.origin} cannot be reached: ${why}`);
    });
    upstream.end();
  }

  /** Closes every open tunnel (both connections): a shutting-down console does not wait for interactive sessions. */
  closeAll(): void {
    for (const t of [...this.tunnels]) {
      this.tunnels.delete(t);
      t.client.destroy();
      t.socket?.destroy();
      t.upstream.destroy();
    }
  }
}
