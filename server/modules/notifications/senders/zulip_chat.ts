import { SendError } from './http.js';
import { str, type Sender } from './types.js';

/** Zulip: `zulip://<bot mail>:<bot key>@<host>/?stream=…&topic=…` → `/api/v1/messages` (a stream message, basic auth). */
export const zulipChat: Sender = {
  async send({ values, message, properties, base, http }) {
    const stream = str(values.stream) || properties.stream;
    if (!stream) throw new SendError('zulip: no stream', false);
    const auth = Buffer.from(`${str(values.username)}:${str(values.password)}`).toString('base64');
    await http(`${base(`https://${str(values.host)}`)}/api/v1/messages`, {
      headers: { authorization: `Basic ${auth}` },
      form: { type: 'stream', to: stream, topic: str(values.topic) || properties.topic || message.title.slice(0, 60), content: `**${message.title}**\n${message.markdown}` },
    });
  },
};
