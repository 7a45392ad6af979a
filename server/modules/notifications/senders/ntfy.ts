import { str, type Sender } from './types.js';

/**
 * ntfy: `ntfy://[user:pass@]host/<topic>?Scheme=https` → ntfy's JSON publish (POST / with topic, title, markdown
 * message), with basic auth when a user or password is set (a password alone is an access token: Bearer).
 */
export const ntfy: Sender = {
  async send({ url, values, message, base, http }) {
    const scheme = (url.searchParams.get('Scheme') ?? url.searchParams.get('scheme') ?? 'https').replace(/:$/, '');
    const user = str(values.username);
    const pass = str(values.password);
    const headers: Record<string, string> = {};
    if (user) headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
    else if (pass) headers.authorization = `Bearer ${pass}`;
    const json: Record<string, unknown> = { topic: str(values.topic), title: message.title, message: message.markdown, markdown: true };
    for (const k of ['priority', 'tags', 'click', 'icon']) {
      const v = url.searchParams.get(k);
      if (v) json[k] = k === 'priority' ? Number(v) || v : k === 'tags' ? v.split(',') : v;
    }
    await http(`${base(`${scheme}://${str(values.host) || 'ntfy.sh'}`)}/`, { headers, json });
  },
};
