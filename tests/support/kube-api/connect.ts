/**
 * The connect subresources of pods (`exec`, `attach`, `portforward`) once a request is authorised: the checks the API
 * server and the kubelet make before switching protocols (planConnect), then the WebSocket upgrade and the session
 * (ExecServer). Sessions: exec.ts (exec, attach), portforward.ts.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { JsonObject } from './patch.js';
import { runSession, runSpdySession } from './exec.js';
import { servePortForward, socketTransport, wsTransport } from './portforward.js';
import type { ExecRecord, KubeObject } from './types.js';

/** Exec and attach subprotocols served, in the server's order of preference (v1-v3 errors are plain text: not served). */
export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;

/** Exec and attach over a plain SPDY/3.1 upgrade (kubectl's fallback): what the kubelet serves there. */
export const EXEC_SPDY_PROTOCOLS = ['v4.channel.k8s.io'] as const;

/** Port-forward: SPDY/3.1 tunnelled in a WebSocket (kubectl since v1.31), or over a plain SPDY/3.1 upgrade. */
export const PORT_FORWARD_PROTOCOL = 'SPDY/3.1+portforward.k8s.io';
export const PORT_FORWARD_SPDY_PROTOCOL = 'portforward.k8s.io';

/** What an accepted connect request runs. */
export type ConnectPlan = { transport: 'websocket' | 'spdy' } & (
  | {
    kind: 'exec' | 'attach'; protocol: string; container: string; command: string[];
    stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean;
    /** environment of the stand-in container (`env` prints it) */
    env: Array<[string, string]>;
  }
  | { kind: 'portforward'; protocol: string; ports: number[] }
);

/**
 * The checks of a connect request on `pod` (each failure is a 400 with the API server's or kubelet's wording), or
 * what to run. `upgrade` tells whether the request came as an HTTP upgrade at all.
 */
export function planConnect(pod: KubeObject, sub: string, q: URLSearchParams, headers: IncomingHttpHeaders, upgrade: boolean): ConnectPlan | { fail: string } {
  const name = pod.metadata.name;
  const phase = (pod.status as JsonObject | undefined)?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') {
    if (sub === 'portforward') return { fail: `unable to forward port because pod is not running. Current status=${phase}` };
    return { fail: `cannot ${sub === 'exec' ? 'exec into' : 'attach to'} a container in a completed pod; current phase is ${phase}` };
  }
  if (!upgrade) return { fail: 'Upgrade request required' };
  const upgradeTo = (headers.upgrade ?? '').toLowerCase();
  if (upgradeTo !== 'websocket' && upgradeTo !== 'spdy/3.1') return { fail: `unable to upgrade: unsupported protocol ${headers.upgrade}` };
  const transport = upgradeTo === 'websocket' ? 'websocket' : 'spdy';
  // the subprotocols a client offers: Sec-WebSocket-Protocol, or one X-Stream-Protocol-Version per protocol (SPDY)
  const offeredIn = transport === 'websocket' ? headers['sec-websocket-protocol'] : headers['x-stream-protocol-version'];
  const offered = [offeredIn ?? ''].flat().join(',').split(',').map((p) => p.trim()).filter(Boolean);
  const containers = (pod.spec as JsonObject).containers as JsonObject[];

  if (sub === 'portforward') {
    const protocol = transport === 'websocket' ? PORT_FORWARD_PROTOCOL : PORT_FORWARD_SPDY_PROTOCOL;
    if (!offered.includes(protocol)) return { fail: `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${protocol}]` };
    const ports = containers.flatMap((c) => ((c.ports as JsonObject[] | undefined) ?? []).map((p) => Number(p.containerPort)));
    return { transport, kind: 'portforward', protocol, ports };
  }

  const names = containers.map((c) => String(c.name));
  let container = q.get('container') ?? '';
  if (!container) {
    if (names.length !== 1) return { fail: `a container name must be specified for pod ${name}, choose one of: [${names.join(' ')}]` };
    container = names[0];
  }
  const spec = containers.find((c) => c.name === container);
  if (!spec) return { fail: `container ${container} is not valid for pod ${name}` };
  const flag = (k: string) => ['true', '1'].includes(q.get(k) ?? '');
  const [stdin, stdout, stderr, tty] = ['stdin', 'stdout', 'stderr', 'tty'].map(flag);
  if (!stdin && !stdout && !stderr) return { fail: 'you must specify at least 1 of stdin, stdout, stderr' };
  if (tty && stderr) return { fail: 'stderr cannot be true when tty is true' };
  // attach runs the container's own command for the session (default `cat`): there is no running process to join
  const own = [...((spec.command as string[] | undefined) ?? []), ...((spec.args as string[] | undefined) ?? [])];
  const command = sub === 'exec' ? q.getAll('command') : own.length ? own : ['cat'];
  if (!command.length) return { fail: 'you must specify at least one command for the container' };
  const served: readonly string[] = transport === 'websocket' ? EXEC_PROTOCOLS : EXEC_SPDY_PROTOCOLS;
  const protocol = served.find((p) => offered.includes(p));
  if (!protocol) return { fail: `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${served.join(' ')}]` };
  const env: Array<[string, string]> = [
    ['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
    ['HOSTNAME', name],
    ...((spec.env as JsonObject[] | undefined) ?? []).map((e): [string, string] => [String(e.name), String(e.value ?? '')]),
  ];
  return { transport, kind: sub === 'exec' ? 'exec' : 'attach', protocol, container, command, stdin, stdout, stderr, tty, env };
}

/** The WebSocket side: upgrades with `ws` (noServer) to the plan's subprotocol and runs the session. */
export class ExecServer {
  /** the subprotocol chosen for each request before its upgrade */
  private readonly chosen = new WeakMap<IncomingMessage, string>();

  private readonly wss = new WebSocketServer({
    noServer: true,
    // no permessage-deflate: kubectl does not ask for it, and byte-exact frames keep the tests simple to read
    perMessageDeflate: false,
    handleProtocols: (_offered, req) => this.chosen.get(req) ?? false,
  });

  private readonly open = new Set<WebSocket>();
  private readonly spdy = new Set<Duplex>();

  /** Sessions open now (WebSocket and SPDY). */
  get size(): number {
    return this.open.size + this.spdy.size;
  }

  accept(req: IncomingMessage, socket: Duplex, head: Buffer, plan: ConnectPlan, record: ExecRecord): void {
    if (plan.transport === 'spdy') return this.acceptSpdy(socket, head, plan, record);
    this.chosen.set(req, plan.protocol);
    // `ws` refuses subprotocols that are not RFC 7230 tokens, and `SPDY/3.1+portforward.k8s.io` has a '/' (Go's
    // servers take it): the header it parses is a placeholder, the answer is the chosen protocol all the same
    req.headers['sec-websocket-protocol'] = 'chosen-by-kube-api';
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.open.add(ws);
      ws.once('close', () => this.open.delete(ws));
      if (plan.kind === 'portforward') servePortForward(wsTransport(ws), record, plan.ports);
      else runSession(ws, { record, stdin: plan.stdin, stdout: plan.stdout, stderr: plan.stderr && !plan.tty, env: plan.env });
    });
  }

  /** Plain SPDY/3.1: the 101 with the chosen X-Stream-Protocol-Version, then the SPDY session on the connection. */
  private acceptSpdy(socket: Duplex, head: Buffer, plan: ConnectPlan, record: ExecRecord): void {
    this.spdy.add(socket);
    socket.once('close', () => this.spdy.delete(socket));
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${plan.protocol}\r\n\r\n`);
    if (plan.kind === 'portforward') servePortForward(socketTransport(socket), record, plan.ports);
    else runSpdySession(socket, { record, stdin: plan.stdin, stdout: plan.stdout, stderr: plan.stderr && !plan.tty, env: plan.env });
    if (head.length) socket.emit('data', head);
  }

  /** Drops every open session (server going down or stopping). */
  closeAll(): void {
    for (const ws of this.open) ws.terminate();
    for (const s of this.spdy) s.destroy();
  }
}
