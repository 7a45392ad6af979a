import { randomUUID } from 'node:crypto';
import { SendError } from './http.js';
import { str, type Sender } from './types.js';

const api = '/_matrix/client/r0';

/**
 * Matrix: `matrix://[user]:<password or access token>@<host>/?rooms=!id,#alias&DisableTLS=false`. With a user it
 * logs in (m.login.password) for a token, else the password is the token; rooms from `rooms` (an alias is joined
 * first), else every joined room; each gets an m.text with the HTML body.
 */
export const matrix: Sender = {
  async send({ url, values, message, base, http }) {
    const scheme = values.insecure_tls === true ? 'http' : 'https';
    const root = `${base(`${scheme}://${str(values.host)}`)}${api}`;
    let token = str(values.password);
    if (values.username) {
      const login = await http(`${root}/login`, {
        json: { type: 'm.login.password', identifier: { type: 'm.id.user', user: str(values.username) }, password: token },
      });
      token = str((login.json as { access_token?: string } | undefined)?.access_token);
      if (!token) throw new SendError('matrix: the login gave no access token', false);
    }
    const headers = { authorization: `Bearer ${token}` };
    let rooms = (url.searchParams.get('rooms') ?? url.searchParams.get('room') ?? '').split(',').map((r) => r.trim()).filter(Boolean);
    if (!rooms.length) {
      const joined = await http(`${root}/joined_rooms`, { method: 'GET', headers });
      rooms = (joined.json as { joined_rooms?: string[] } | undefined)?.joined_rooms ?? [];
    }
    if (!rooms.length) throw new SendError('matrix: no rooms to send to', false);
    for (const room of rooms) {
      let id = room;
      if (room.startsWith('#')) {
        const j = await http(`${root}/join/${encodeURIComponent(room)}`, { headers, json: {} });
        id = str((j.json as { room_id?: string } | undefined)?.room_id) || room;
      }
      await http(`${root}/rooms/${encodeURIComponent(id)}/send/m.room.message/${randomUUID()}`, {
        method: 'PUT', headers,
        json: { msgtype: 'm.text', body: `${message.title}\n${message.text}`, format: 'org.matrix.custom.html', formatted_body: message.html },
      });
    }
  },
};
