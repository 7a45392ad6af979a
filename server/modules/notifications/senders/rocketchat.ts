import { str, type Sender } from './types.js';

/** Rocket.Chat: `rocketchat://[user@]host[:port]/<token a>/<token b>/<channel>` → the webhook `/hooks/<a>/<b>`. */
export const rocketchat: Sender = {
  async send({ values, message, base, http }) {
    const host = `${str(values.host)}${values.port ? `:${str(values.port)}` : ''}`;
    const channel = str(values.channel);
    const url = `${base(`https://${host}`)}/hooks/${encodeURIComponent(str(values.username))}/${encodeURIComponent(str(values.password))}`;
    await http(url, {
      json: {
        text: `*${message.title}*\n${message.markdown}`,
        ...(channel ? { channel: /^[#@]/.test(channel) ? channel : `#${channel}` } : {}),
        ...(values.user ? { username: str(values.user) } : {}),
      },
    });
  },
};
