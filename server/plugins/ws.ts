import websocket from '@fastify/websocket';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { WebSocket } from 'ws';
import type { Config } from '../config.js';
import { LiveClientMessage, WS_CLOSE_SESSION_ENDED, type LiveMessage } from '../contracts/events.js';
import { can, type Role } from '../contracts/rbac.js';
import { ForbiddenError } from '../lib/errors.js';
import { EventBus, publishChange, type ChangeInput } from '../lib/events.js';
import { RELATIONS } from '../modules/db/registry.js';
import { resolvePrincipal, type Principal } from './auth.js';

/** The live-update bus of this replica. */
export interface LiveEvents {
  /**
   * Tells every replica about a committed change (through the pool; never throws). Inside a transaction, call
   * `notifyChange(client, change)` from lib/events instead: it fires only on commit.
   */
  publish(change: ChangeInput): Promise<boolean>;
  readonly bus: EventBus;
  /** Open /api/ws connections on this replica. */
  readonly connections: number;
  /** Handles what clients send (LiveClientMessage: a run's log watch); each handler sees every valid message. */
  onClientMessage(handler: LiveClientHandler): void;
}

/** One connection as a client-message handler sees it. */
export interface LiveClientContext {
  /** The caller, as last revalidated. */
  readonly principal: Principal;
  /**
   * Sends a message the caller may read (mayReceive) unless the socket is closed or has more than 1 MB unsent;
   * false when it was not sent (retry later, from where it stopped).
   */
  send(message: LiveMessage): boolean;
  /** Called once when the connection closes. */
  onClose(fn: () => void): void;
}
export type LiveClientHandler = (ctx: LiveClientContext, message: LiveClientMessage) => void;

declare module 'fastify' {
  interface FastifyInstance {
    events: LiveEvents;
  }
}

export interface WsPluginOptions {
  config: Config;
  /** Ping every connection this often; one that has not answered the previous ping is dropped. */
  heartbeatMs?: number;
  /** Messages a connection may have unsent before it is considered lagging (events dropped, then `resync`). */
  maxPending?: number;
}

const HEARTBEAT_MS = 30_000;
const MAX_PENDING = 64;
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** Relations whose changes may alter someone's roles or end their session. */
const ACCESS_RELATIONS = new Set(['people', 'people_roles', 'identities', 'sessions']);

/** Whether roles may read a relation's events: the relation's RBAC resource, as /api/db reads check it. Unknown → no. */
export function mayReceive(roles: readonly Role[], event: LiveMessage): boolean {
  // a run's log lines are read as their relation is
  if (event.type === 'log') return can(roles, RELATIONS.playbook_run_action_logs?.resource ?? 'playbook_runs', 'read');
  // a log live tail's lines are read as POST /api/logs reads them
  if (event.type === 'logs_tail') return can(roles, 'logging_backends', 'read');
  if (event.type !== 'change') return true;
  const spec = Object.hasOwn(RELATIONS, event.relation) ? RELATIONS[event.relation] : undefined;
  // rows read by their owners (sessions, sign-in activity): everyone hears of a change (ids only) and rereads their own
  return spec !== undefined && (spec.readOwner !== undefined || can(roles, spec.resource, 'read'));
}

/**
 * A browser's Origin must be the console's own (PUBLIC_URL or the Host it connected to): the session cookie
 * travels with any page's WebSocket, so without this any site could listen in (cross-site WebSocket hijacking).
 */
export function sameOrigin(req: Pick<FastifyRequest, 'headers' | 'host'>, publicUrl: string): boolean {
  const given = req.headers.origin;
  if (!given) return false;
  let origin: URL;
  try {
    origin = new URL(given);
  } catch {
    return false;
  }
  if (origin.origin === new URL(publicUrl).origin) return true;
  return (origin.protocol === 'http:' || origin.protocol === 'https:') && origin.host === req.host?.toLowerCase();
}

/** One subscriber: filters by the caller's roles and keeps its send queue bounded. */
export class LiveConnection {
  alive = true;
  private pending = 0;
  private lagging = false;

  constructor(
    readonly socket: Pick<WebSocket, 'send' | 'bufferedAmount' | 'readyState' | 'OPEN'>,
    public principal: Principal,
    private readonly maxPending = MAX_PENDING,
  ) {}

  /** Sends the event if the caller may read it; a lagging client gets events dropped, then one `resync`. */
  deliver(event: LiveMessage, text: string): void {
    if (!mayReceive(this.principal.roles, event)) return;
    if (this.lagging) return;
    if (this.pending >= this.maxPending || this.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.lagging = true;
      return;
    }
    this.send(text);
  }

  /** Sends outside the event queue's count (the caller paces itself); false when closed or too far behind. */
  trySend(event: LiveMessage): boolean {
    if (!mayReceive(this.principal.roles, event)) return false;
    if (this.socket.readyState !== this.socket.OPEN || this.socket.bufferedAmount > MAX_BUFFERED_BYTES) return false;
    this.socket.send(JSON.stringify(event));
    return true;
  }

  private send(text: string): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.pending++;
    this.socket.send(text, () => {
      this.pending--;
      if (this.lagging && this.pending === 0) {
        this.lagging = false;
        this.send(JSON.stringify({ type: 'resync', reason: 'lagged', at: new Date().toISOString() } satisfies LiveMessage));
      }
    });
  }
}

/**
 * Live updates: `GET /api/ws` streams the changes every replica publishes (PostgreSQL LISTEN/NOTIFY on one
 * dedicated connection per replica) to signed-in clients, each filtered by what the client's roles may read.
 */
export const wsPlugin = fp<WsPluginOptions>(
  async (app, opts) => {
    const { config } = opts;
    const heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_MS;
    await app.register(websocket, { options: { maxPayload: 4096 } });
    // An upgrade refused by a hook that ran before @fastify/websocket's own (the auth plugin's 401) leaves the socket
    // open, since only that hook marks the request as a WebSocket one; close it once the refusal is sent.
    app.addHook('onResponse', async (req) => {
      if (!req.ws && req.raw.headers.upgrade) req.raw.socket?.destroy();
    });

    const bus = new EventBus({ connectionString: config.DATABASE_URL!, log: app.log });
    const open = new Map<WebSocket, { conn: LiveConnection; req: FastifyRequest }>();
    const clientHandlers: LiveClientHandler[] = [];
    app.decorate('events', {
      publish: (change: ChangeInput) =>
        publishChange(app.db, change, (err) => app.log.warn({ err }, 'live event not published')),
      bus,
      get connections() {
        return open.size;
      },
      onClientMessage: (handler: LiveClientHandler) => {
        clientHandlers.push(handler);
      },
    } satisfies LiveEvents);

    /**
     * Re-reads each caller's principal from the database, past the cache: roles may have changed, sessions may have
     * ended. The event that triggers this can arrive before the writer's request has cleared the cache.
     */
    async function revalidate(): Promise<void> {
      await Promise.all(
        [...open].map(async ([socket, { conn, req }]) => {
          try {
            const { principal } = await resolvePrincipal(app.db, req, { fresh: true });
            if (principal) conn.principal = principal;
            else socket.close(WS_CLOSE_SESSION_ENDED, 'session ended');
          } catch (err) {
            app.log.debug({ err }, 'live events: could not revalidate a connection');
          }
        }),
      );
    }
    let revalidating: NodeJS.Timeout | null = null;

    bus.subscribe((event) => {
      // log lines go only to a run's watchers (LiveClientContext.send), never broadcast
      if (event.type === 'log' || event.type === 'watching' || event.type === 'logs_tail') return;
      const text = JSON.stringify(event);
      for (const { conn } of open.values()) conn.deliver(event, text);
      // an access change may concern a connected caller; the principal cache was already cleared on this replica
      if (event.type === 'change' && ACCESS_RELATIONS.has(event.relation) && !revalidating) {
        revalidating = setTimeout(() => {
          revalidating = null;
          void revalidate();
        }, 50);
      }
    });

    const heartbeat = setInterval(() => {
      for (const [socket, { conn }] of open) {
        if (!conn.alive) {
          socket.terminate();
          continue;
        }
        conn.alive = false;
        socket.ping();
      }
      void revalidate();
    }, heartbeatMs);
    heartbeat.unref();

    app.addHook('onReady', async () => {
      await bus.start();
    });
    app.addHook('preClose', async () => {
      clearInterval(heartbeat);
      if (revalidating) clearTimeout(revalidating);
    });
    app.addHook('onClose', async () => {
      await bus.stop();
    });

    app.get(
      '/api/ws',
      {
        websocket: true,
        config: { access: 'authenticated' },
        preHandler: async (req) => {
          if (req.principal?.via === 'session' && !sameOrigin(req, config.publicUrl)) {
            throw new ForbiddenError('cross-origin WebSocket refused');
          }
        },
      },
      (socket, req) => {
        const conn = new LiveConnection(socket, req.principal!, opts.maxPending);
        open.set(socket, { conn, req });
        socket.on('pong', () => {
          conn.alive = true;
        });
        socket.on('error', (err) => app.log.debug({ err }, 'live events: socket error'));
        const closers: (() => void)[] = [];
        const ctx: LiveClientContext = {
          get principal() {
            return conn.principal;
          },
          send: (message) => conn.trySend(message),
          onClose: (fn) => closers.push(fn),
        };
        socket.on('close', () => {
          open.delete(socket);
          for (const fn of closers.splice(0)) fn();
        });
        // clients send only LiveClientMessage (a run's log watch); anything else is ignored (maxPayload bounds it)
        socket.on('message', (data) => {
          let message: LiveClientMessage;
          try {
            message = LiveClientMessage.parse(JSON.parse(String(data)));
          } catch {
            return;
          }
          for (const handle of clientHandlers) {
            try {
              handle(ctx, message);
            } catch (err) {
              app.log.warn({ err }, 'live events: a client message handler failed');
            }
          }
        });
        socket.send(JSON.stringify({ type: 'ready', at: new Date().toISOString() } satisfies LiveMessage));
      },
    );
  },
  { name: 'ws', dependencies: ['db', 'auth'] },
);
