import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResendResponderResult } from '../../server/contracts/incidents.js';
import { createTestApp, makePerson, sessionHeaders, type TestContext } from './helpers.js';

// An email responder really goes out: a real SMTP server (smtp-server) listens on loopback, a connection of type
// smtp points at it, and POST /api/db/responders for a team with an email client must deliver one message with the
// responder's recipient, subject and body. Failures are recorded on the row and can be resent.

interface Received {
  from: string;
  to: string[];
  raw: string;
  user: string | undefined;
}

let t: TestContext;
let smtp: SMTPServer;
let port: number;
const inbox: Received[] = [];
let who: { id: string; headers: Record<string, string> };
let incident: string;

const json = { 'content-type': 'application/json' };

async function addConnection(name: string, password: string) {
  return (await t.db.query(
    `INSERT INTO connections (name, namespace, type, url, username, password, properties)
     VALUES ($1, 'default', 'smtp', $2, 'mailer', $3, $4) RETURNING id`,
    [name, `smtp://127.0.0.1:${port}`, password, { from: 'console@example.test' }])).rows[0].id as string;
}

async function addTeam(name: string, email: Record<string, unknown> = {}) {
  return (await t.db.query(
    `INSERT INTO teams (name, spec, created_by) VALUES ($1, $2, $3) RETURNING id`,
    [name, { responder_clients: { email } }, who.id])).rows[0].id as string;
}

async function addEmailResponder(teamId: string, to: string, subject: string, text: string) {
  const res = await t.app.inject({
    method: 'POST', url: '/api/db/responders?select=*', headers: { ...who.headers, ...json, prefer: 'return=representation' },
    payload: JSON.stringify({
      incident_id: incident, created_by: who.id, team_id: teamId, type: 'system',
      properties: { responderType: 'email', to, subject, body: text },
    }),
  });
  expect(res.statusCode, res.payload).toBe(201);
  const row = JSON.parse(res.payload)[0];
  // the POST answers before any delivery: sending happens off the request path
  expect(row.delivery_status).toBe('pending');
  return row.id as string;
}

/** Waits (up to ~15 s, polling) until the responder's delivery settles; returns the row. */
async function settled(id: string) {
  for (let i = 0; i < 300; i++) {
    const { rows } = await t.db.query(
      'SELECT delivery_status, delivery_error, delivered_at, external_id FROM responders WHERE id = $1', [id]);
    if (rows[0] && !['pending', 'sending'].includes(rows[0].delivery_status)) return rows[0];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`responder ${id} never settled`);
}

beforeAll(async () => {
  smtp = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === 'mailer' && auth.password === 'right-password') cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          user: session.user as string | undefined,
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  port = (smtp.server.address() as AddressInfo).port;

  t = await createTestApp({ PUBLIC_URL: 'https://console.example.test' });
  const p = await makePerson(t.db, { roles: ['responder'], first: 'Mae', last: 'Ler' });
  who = { id: p.id, headers: await sessionHeaders(t.db, p.id) };
  incident = (await t.db.query(
    `INSERT INTO incidents (title, created_by) VALUES ('Mail incident', $1) RETURNING id`, [who.id])).rows[0].id;
});
afterAll(async () => {
  await t.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

describe('email responders', () => {
  it('without any SMTP connection the delivery fails with the reason on the row', async () => {
    const team = await addTeam('No mail yet');
    const id = await addEmailResponder(team, 'oncall@example.test', 'Nothing', 'No server');
    const row = await settled(id);
    expect(row.delivery_status).toBe('failed');
    expect(row.delivery_error).toMatch(/^No SMTP connection/);
    expect(inbox).toHaveLength(0);
  });

  it('sends through the smtp connection: recipient, subject, body and the incident link arrive once', async () => {
    await addConnection('mail', 'right-password');
    const team = await addTeam('Mail team');
    const id = await addEmailResponder(team, 'oncall@example.test, lead@example.test', 'INC needs you', 'Please join the bridge.');
    const row = await settled(id);
    expect(row.delivery_status, row.delivery_error).toBe('sent');
    expect(row.delivered_at).not.toBeNull();
    expect(inbox).toHaveLength(1);
    const [mail] = inbox;
    expect(mail.user).toBe('mailer');
    expect(mail.from).toBe('console@example.test');
    expect(mail.to.sort()).toEqual(['lead@example.test', 'oncall@example.test']);
    expect(mail.raw).toMatch(/^Subject: INC needs you$/m);
    expect(mail.raw).toContain('Please join the bridge.');
    expect(mail.raw).toContain(`https://console.example.test/incidents/${incident}`);
    // the Message-ID the server accepted becomes the responder's external id
    const messageId = /^Message-ID: (.+)$/im.exec(mail.raw)?.[1].trim();
    expect(row.external_id).toBe(messageId);

    // later sweeps (woken by another responder) never send it again
    const other = await addEmailResponder(team, 'second@example.test', 'Second', 'Another');
    expect((await settled(other)).delivery_status).toBe('sent');
    expect(inbox).toHaveLength(2);
    expect(inbox[1].to).toEqual(['second@example.test']);
    expect((await t.db.query('SELECT delivery_status FROM responders WHERE id = $1', [id])).rows[0].delivery_status).toBe('sent');
  });

  it('a connection named by the team client is used; a wrong password fails, and resend after the fix delivers', async () => {
    await addConnection('bad-mail', 'wrong-password');
    const team = await addTeam('Named mail', { connection: 'connection://default/bad-mail' });
    const count = inbox.length;
    const id = await addEmailResponder(team, 'named@example.test', 'Named', 'Via the named connection');
    const failed = await settled(id);
    expect(failed.delivery_status).toBe('failed');
    expect(failed.delivery_error).toMatch(/auth|Invalid/i);
    expect(failed.delivery_error).not.toContain('wrong-password');
    expect(inbox).toHaveLength(count);

    await t.db.query(`UPDATE connections SET password = 'right-password' WHERE name = 'bad-mail'`);
    const res = await t.app.inject({ method: 'POST', url: `/api/incidents/responders/${id}/resend`, headers: who.headers });
    expect(res.statusCode, res.payload).toBe(202);
    expect(ResendResponderResult.parse(JSON.parse(res.payload))).toEqual({ id, delivery_status: 'pending' });
    expect((await settled(id)).delivery_status).toBe('sent');
    expect(inbox).toHaveLength(count + 1);
    expect(inbox.at(-1)!.to).toEqual(['named@example.test']);
  });

  it('a team client naming a missing connection fails with that name', async () => {
    const team = await addTeam('Missing conn', { connection: 'connection://ops/nowhere' });
    const id = await addEmailResponder(team, 'x@example.test', 'X', 'Y');
    expect(await settled(id)).toMatchObject({ delivery_status: 'failed', delivery_error: 'SMTP connection connection://ops/nowhere not found' });
  });
});
