import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveMessage } from '../../server/contracts/events.js';
import { setLogsTimings } from '../../server/modules/logs/index.js';
import { startLokiServer, type LokiServer } from '../support/loki-server.js';
import { until } from '../support/poll.js';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';
import { connectLive, listen, type LiveClient } from './ws-client.js';

// Log live tails over /api/ws (issue 16, Beyond the reference 2): a real app on PostgreSQL, a real `ws` client, the
// Loki test server on loopback. Subscribe → history, live, new lines as they are written; unsubscribe and the socket
// closing cancel the backend request; refusals; the gate.

let t: TestContext;
let loki: LokiServer;
let wsUrl: string;
let admin: Record<string, string>;
let componentId: string;
const open: LiveClient[] = [];

type Tail = Extract<LiveMessage, { type: 'logs_tail' }>;
const tail = (sub: string, event?: Tail['event']) => (m: LiveMessage): boolean =>
  m.type === 'logs_tail' && m.sub === sub && (!event || m.event === event);
const tails = (c: LiveClient, sub: string) => c.messages.filter((m): m is Tail => m.type === 'logs_tail' && m.sub === sub);
const messagesOf = (c: LiveClient, sub: string, event: Tail['event']) =>
  tails(c, sub).filter((m) => m.event === event).flatMap((m) => (m.lines ?? []).map((l) => l.message));

async function connect(headers = admin): Promise<LiveClient> {
  const c = await connectLive(wsUrl, headers);
  open.push(c);
  return c;
}
const send = (c: LiveClient, message: unknown) => c.socket.send(JSON.stringify(message));

/** Waits until no request reaches Loki for a while (polling stopped). */
async function quiet(): Promise<void> {
  await until(async () => {
    const n = loki.requests.length;
    await new Promise((r) => setTimeout(r, 400));
    return loki.requests.length === n;
  }, 'polling to stop', 10_000);
}

beforeAll(async () => {
  setLogsTimings({ timeoutMs: 2_000, pollMs: 100, firstBatch: 10, batch: 100 });
  loki = await startLokiServer();
  t = await createTestApp();
  wsUrl = await listen(t.app);
  const p = await makePerson(t.db, { roles: ['admin'] });
  admin = await bearerHeaders(t.db, p.id);
  await t.db.query('INSERT INTO logging_backends (name, namespace, spec) VALUES ($1, $2, $3)',
    ['loki-live', 'default', JSON.stringify({ backends: [{ loki: { url: loki.url, labels: { source: 'loki' }, routes: [{ type: 'loki' }] } }] })]);
  const { rows } = await t.db.query<{ id: string }>(
    'INSERT INTO components (name, external_id, type, log_selectors) VALUES ($1, $2, $3, $4) RETURNING id',
    ['tailed', 'tailed', 'Service', JSON.stringify([{ name: 'app', type: 'loki', labels: { app: 'tailed' } }])]);
  componentId = rows[0].id;
});

afterAll(async () => {
  setLogsTimings();
  for (const c of open) c.close();
  await loki?.close();
  await t?.close();
}, 60_000);

describe('logs live tail over /api/ws', () => {
  it('subscribe: the history newest first, live, then each new line once, oldest first; unsubscribe stops the polling', async () => {
    loki.corpus.clear();
    const now = Date.now();
    loki.corpus.add({ ms: now - 3000, text: 'older line', labels: { app: 'tailed' } }, { ms: now - 2000, text: 'old line', labels: { app: 'tailed' } },
      { ms: now - 1000, text: 'not mine', labels: { app: 'other' } });
    const c = await connect();
    send(c, { type: 'logs_subscribe', sub: 'a', search: { id: componentId, start: '5m' } });
    await c.next(tail('a', 'live'));
    expect(messagesOf(c, 'a', 'history')).toEqual(['old line', 'older line']);
    // the backend's own labels are added, as POST /api/logs adds them
    expect(tails(c, 'a').find((m) => m.event === 'history')!.lines![0].labels).toMatchObject({ app: 'tailed', source: 'loki' });

    loki.corpus.add({ text: 'new line 1', labels: { app: 'tailed' } }, { ms: Date.now() + 1, text: 'new line 2', labels: { app: 'tailed' } },
      { text: 'other new', labels: { app: 'other' } });
    await until(async () => messagesOf(c, 'a', 'lines').length >= 2, 'the new lines', 10_000);
    loki.corpus.add({ ms: Date.now() + 5, text: 'new line 3', labels: { app: 'tailed' } });
    await until(async () => messagesOf(c, 'a', 'lines').length >= 3, 'the third line', 10_000);
    // a few more polls find nothing new: nothing repeats
    const polls = loki.requests.length;
    await until(async () => loki.requests.length >= polls + 3, 'more polls', 10_000);
    expect(messagesOf(c, 'a', 'lines')).toEqual(['new line 1', 'new line 2', 'new line 3']);
    // the stream selector was the selector's labels; the polls ask forward
    expect(loki.requests.at(-1)!.get('query')).toBe('{app="tailed"}');
    expect(loki.requests.at(-1)!.get('direction')).toBe('forward');

    send(c, { type: 'logs_unsubscribe', sub: 'a' });
    await quiet();
    const after = loki.requests.length;
    await new Promise((r) => setTimeout(r, 500));
    expect(loki.requests.length).toBe(after);
    c.close();
  });

  it('unsubscribe and the socket closing each cancel the backend request in flight', async () => {
    loki.corpus.clear();
    const c = await connect();
    loki.aborted = 0;
    loki.requests.length = 0;
    let release = loki.hold();
    try {
      // resuming (after): no history, so the first request to Loki is a poll
      send(c, { type: 'logs_subscribe', sub: 'held', search: { id: componentId }, after: new Date().toISOString() });
      await c.next(tail('held', 'live'));
      await until(async () => loki.requests.length === 1, 'the poll to reach loki', 5_000);
      send(c, { type: 'logs_unsubscribe', sub: 'held' });
      await until(async () => loki.aborted === 1, 'the held poll to be cancelled', 5_000);
    } finally {
      release();
    }
    await quiet();

    loki.requests.length = 0;
    release = loki.hold();
    try {
      send(c, { type: 'logs_subscribe', sub: 'closing', search: { id: componentId }, after: new Date().toISOString() });
      await c.next(tail('closing', 'live'));
      await until(async () => loki.requests.length === 1, 'the poll to reach loki', 5_000);
      c.socket.close();
      await c.closed();
      await until(async () => loki.aborted === 2, 'the held poll to be cancelled by the close', 5_000);
    } finally {
      release();
    }
    await quiet();
    expect(loki.requests.length).toBe(1);
  });

  it('several tails on one socket are independent; a backend error while live is reported and the tail resumes', async () => {
    loki.corpus.clear();
    const c = await connect();
    send(c, { type: 'logs_subscribe', sub: 'x', search: { id: componentId, query: 'alpha' } });
    send(c, { type: 'logs_subscribe', sub: 'y', search: { id: componentId, query: 'beta' } });
    await c.next(tail('x', 'live'));
    await c.next(tail('y', 'live'));
    loki.corpus.add({ text: 'alpha 1', labels: { app: 'tailed' } }, { ms: Date.now() + 1, text: 'beta 1', labels: { app: 'tailed' } });
    await until(async () => messagesOf(c, 'x', 'lines').length === 1 && messagesOf(c, 'y', 'lines').length === 1, 'each its own line', 10_000);
    expect(messagesOf(c, 'x', 'lines')).toEqual(['alpha 1']);
    expect(messagesOf(c, 'y', 'lines')).toEqual(['beta 1']);
    send(c, { type: 'logs_unsubscribe', sub: 'y' });

    loki.failWith(503, 'overloaded');
    const e = (await c.next(tail('x', 'error'), 10_000)) as Tail;
    expect(e).toMatchObject({ status: 502, retrying: true, error: 'loki backend: HTTP 503: overloaded' });
    loki.failWith(0, '');
    loki.corpus.add({ ms: Date.now() + 2, text: 'alpha 2', labels: { app: 'tailed' } });
    await until(async () => messagesOf(c, 'x', 'lines').includes('alpha 2'), 'the tail to resume', 10_000);
    expect(messagesOf(c, 'x', 'lines')).toEqual(['alpha 1', 'alpha 2']);
    expect(messagesOf(c, 'y', 'lines')).toEqual(['beta 1']);
    c.close();
  });

  it('refusals end the tail with one error naming the field; at most 4 tails a connection', async () => {
    const c = await connect();
    send(c, { type: 'logs_subscribe', sub: 'noid', search: {} });
    expect(await c.next(tail('noid', 'error'))).toMatchObject({ status: 400, error: 'component ID is required' });
    send(c, { type: 'logs_subscribe', sub: 'sel', search: { id: componentId, name: 'nope' } });
    expect(await c.next(tail('sel', 'error'))).toMatchObject({ status: 404 });
    send(c, { type: 'logs_subscribe', sub: 're', search: { id: componentId, query: '/a(b/' } });
    expect(((await c.next(tail('re', 'error'))) as Tail).error).toMatch(/^query: invalid regular expression/);
    send(c, { type: 'logs_subscribe', sub: 'after', search: { id: componentId }, after: 'yesterday' });
    expect(await c.next(tail('after', 'error'))).toMatchObject({ status: 400, error: 'after: not an RFC 3339 time' });
    // a malformed message is ignored; the socket stays usable
    send(c, { type: 'logs_subscribe', sub: '', search: { id: componentId } });
    for (const sub of ['1', '2', '3', '4', '5']) send(c, { type: 'logs_subscribe', sub, search: { id: componentId }, after: new Date().toISOString() });
    expect(await c.next(tail('5', 'error'))).toMatchObject({ status: 429 });
    for (const sub of ['1', '2', '3', '4']) await c.next(tail(sub, 'live'));
    expect(tails(c, '').length).toBe(0);
    c.close();
    await quiet();
  });

  it('every role may tail (session, same origin); logs.disable refuses with 403', async () => {
    const p = await makePerson(t.db, { roles: ['viewer'] });
    const origin = wsUrl.replace(/^ws:/, 'http:').replace(/\/api\/ws$/, '');
    const c = await connect({ ...(await sessionHeaders(t.db, p.id)), origin });
    loki.corpus.clear();
    loki.corpus.add({ ms: Date.now() - 1000, text: 'for viewers', labels: { app: 'tailed' } });
    send(c, { type: 'logs_subscribe', sub: 'v', search: { id: componentId } });
    await c.next(tail('v', 'live'));
    expect(messagesOf(c, 'v', 'history')).toEqual(['for viewers']);
    send(c, { type: 'logs_unsubscribe', sub: 'v' });

    await t.db.query(`INSERT INTO properties (name, value) VALUES ('logs.disable', 'true')`);
    try {
      let n = 0;
      await until(async () => {
        const sub = `gate-${n++}`;
        send(c, { type: 'logs_subscribe', sub, search: { id: componentId } });
        const m = (await c.next(tail(sub))) as Tail;
        if (m.event !== 'error') send(c, { type: 'logs_unsubscribe', sub });
        return m.event === 'error' && m.status === 403;
      }, 'logs.disable to apply', 15_000);
    } finally {
      await t.db.query(`DELETE FROM properties WHERE name = 'logs.disable'`);
    }
    c.close();
    await quiet();
  });
});
