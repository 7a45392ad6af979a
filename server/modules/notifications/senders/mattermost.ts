import { str, type Sender } from './types.js';

/** Mattermost: `mattermost://[user@]host[:port]/<token>[/channel]` → the incoming webhook `/hooks/<token>`. */
export const mattermost: Sender = {
  async send({ values, message, base, http }) {
    const url = `${base(`https://${str(values.host)}`)}/hooks/${encodeURIComponent(str(values.password))}`;
    await http(url, {
      json: {
        text: `#### ${message.title}\n${message.markdown}`,
        ...(values.username ? { username: str(values.username) } : {}),
        ...(values.channel ? { channel: str(values.channel) } : {}),
      },
    });
  },
};
