import { cut, str, type Sender } from './types.js';

/** Discord: `discord://<token>@<webhook id>` → the webhook, the message as one embed (title and markdown). */
export const discord: Sender = {
  async send({ values, message, base, http }) {
    const url = `${base('https://discord.com')}/api/webhooks/${encodeURIComponent(str(values.username))}/${encodeURIComponent(str(values.password))}`;
    await http(url, { json: { embeds: [{ title: cut(message.title, 256), description: cut(message.markdown, 4096) }] } });
  },
};
