import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WS_CLOSE_SESSION_ENDED } from '../../server/contracts/events.js';
import { bearerHeaders, createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';
import { connectLive, listen, type LiveClient } from './ws-client.js';

// GET /api/ws on a real listening app with a real WebSocket client: who may connect, and who hears what.

let t: TestContext;
let url: string;
let origin: string;
let adminId: string;
let admin: Record<string, string>;
const clients: LiveClient[] = [];

const open = async (headers: Record<string, string>) => {
  const c = await connectLive(url, headers);
  clients.push(c);
  return c;
};
/** A browser session: its cookie and the console's own Origin (the CSRF header plays no part in an upgrade). */
const browser = async (personId: string) => ({ cookie: (await sessionHeaders(t.db, personId)).cookie, origin });
const write = (method: 'POST' | 'PATCH' | 'DELETE', path: string, payload?: unknown, headers = admin) =>
  t.app.inject({ method, url: path, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(payload ?? {}) });

beforeAll(async () => {
  t = await createTestApp();
  url = await listen(t.app);
  origin = `http://${new URL(url).host}`;
  adminId = (await makePerson(t.db, { roles: ['admin'] })).id;
  admin = await bearerHeaders(t.db, adminId);
});
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});
afterAll(() => t.close());

describe('who may connect', () => {
  it('refuses an anonymous upgrade with 401', async () => {
    await expect(connectLive(url, { origin })).rejects.toThrow('HTTP 401');
  });

  it('refuses a bad session cookie with 401', async () => {
    await expect(connectLive(url, { cookie: 'session=nope', origin })).rejects.toThrow('HTTP 401');
  });

  it('refuses a cookie-authenticated upgrade from another origin, or without an Origin (CSWSH)', async () => {
    const person = (await makePerson(t.db, {})).id;
    const { cookie } = await browser(person);
    await expect(connectLive(url, { cookie, origin: 'http://evil.example' })).rejects.toThrow('HTTP 403');
    await expect(connectLive(url, { cookie })).rejects.toThrow('HTTP 403');
    const c = await open({ cookie, origin });
    expect(c.messages[0].type).toBe('ready');
  });

  it('accepts the origin of PUBLIC_URL too', async () => {
    const other = await createTestApp({ PUBLIC_URL: 'https://console.example.com' });
    try {
      const otherUrl = await listen(other.app);
      const person = (await makePerson(other.db, {})).id;
      const { cookie } = await sessionHeaders(other.db, person);
      const c = await connectLive(otherUrl, { cookie, origin: 'https://console.example.com' });
      c.close();
    } finally {
      await other.close();
    }
  });

  it('accepts a bearer token without an Origin (not an ambient credential)', async () => {
    const c = await open(admin);
    expect(c.messages).toHaveLength(1);
  });
});

describe('what each client hears', () => {
  it('a signed-in client receives the change another user makes through /api/db, with the ids', async () => {
    const editor = await makePerson(t.db, { roles: ['editor'] });
    const c = await open(await browser(editor.id));
    const res = await write('POST', '/api/db/teams', { name: 'live-sre', created_by: adminId });
    expect(res.statusCode, res.payload).toBe(201);
    const event = await c.next((m) => m.type === 'change' && m.relation === 'teams');
    expect(event).toMatchObject({ type: 'change', relation: 'teams' });
    expect(Date.parse((event as { at: string }).at)).not.toBeNaN();

    // with a representation the ids are known
    const rep = await write('PATCH', '/api/db/teams?name=eq.live-sre', { icon: 'x' }, { ...admin, prefer: 'return=representation' });
    const [row] = rep.json() as { id: string }[];
    await c.next((m) => m.type === 'change' && m.relation === 'teams' && m.ids?.[0] === row.id);
  });

  it('sends nothing for writes that changed no rows or were rolled back', async () => {
    const c = await open(admin);
    await write('PATCH', '/api/db/teams?name=eq.no-such-team', { icon: 'x' });
    await write('POST', '/api/db/properties', { name: 'rolled.back', value: '1' }, { ...admin, prefer: 'tx=rollback' });
    await write('POST', '/api/db/properties', { name: 'kept', value: '1' });
    await c.next((m) => m.type === 'change' && m.relation === 'properties');
    expect(c.messages.filter((m) => m.type === 'change')).toEqual([expect.objectContaining({ relation: 'properties' })]);
  });

  it('a viewer hears no role, identity or people changes it may not read; an admin does', async () => {
    const viewer = await open(await browser((await makePerson(t.db, {})).id));
    const watcher = await open(admin);
    const target = await makePerson(t.db, { roles: ['responder'] });

    let res = await write('POST', `/api/auth/${target.id}/properties`, { role: 'editor' });
    expect(res.statusCode, res.payload).toBe(200);
    res = await write('POST', `/api/auth/${target.id}/update_state`, { state: 'inactive' });
    expect(res.statusCode, res.payload).toBe(200);
    // a change the viewer may read, published after the others: once it arrives, the others would have too
    await write('POST', '/api/db/properties', { name: 'sync.point', value: '1' });

    await watcher.next((m) => m.type === 'change' && m.relation === 'people_roles' && m.ids?.[0] === target.id);
    await watcher.next((m) => m.type === 'change' && m.relation === 'identities' && m.ids?.[0] === target.id);
    await viewer.next((m) => m.type === 'change' && m.relation === 'properties');
    const seen = viewer.messages.flatMap((m) => (m.type === 'change' ? [m.relation] : []));
    expect(seen).toEqual(['properties']);
  });

  it('closes the connection when its session ends', async () => {
    const person = await makePerson(t.db, {});
    const headers = await sessionHeaders(t.db, person.id);
    const c = await open({ cookie: headers.cookie, origin });
    // deactivating the user ends their sessions; the connection notices with the identities event
    const res = await write('POST', `/api/auth/${person.id}/update_state`, { state: 'inactive' });
    expect(res.statusCode, res.payload).toBe(200);
    expect(await c.closed()).toBe(WS_CLOSE_SESSION_ENDED);
  });
});

describe('auth changes', () => {
  it('token and invite changes reach those who may read them', async () => {
    const adminClient = await open(await browser(adminId));
    const sessionOfAdmin = await sessionHeaders(t.db, adminId);
    const created = await t.app.inject({
      method: 'POST', url: '/api/auth/create_token', headers: sessionOfAdmin, payload: { name: 'live-token' },
    });
    expect(created.statusCode, created.payload).toBe(200);
    const tokenId = created.json().payload.id as string;
    await adminClient.next((m) => m.type === 'change' && m.relation === 'access_tokens' && m.ids?.[0] === tokenId);

    const invited = await write('POST', '/api/auth/invite_user', {
      firstName: 'Ivy', lastName: 'Invitee', email: 'ivy@example.test', role: 'viewer',
    });
    expect(invited.statusCode, invited.payload).toBe(200);
    await adminClient.next((m) => m.type === 'change' && m.relation === 'invites');
    const invite = new URL(invited.json().link).searchParams.get('invite');
    const reg = await t.app.inject({ method: 'POST', url: '/api/auth/registration', payload: { invite, password: 'ivy password 1' } });
    expect(reg.statusCode, reg.payload).toBe(200);
    const ivy = reg.json().user.id as string;
    await adminClient.next((m) => m.type === 'change' && m.relation === 'identities' && m.ids?.[0] === ivy);
    await adminClient.next((m) => m.type === 'change' && m.relation === 'people' && m.ids?.[0] === ivy);
  });
});
