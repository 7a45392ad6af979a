import { cut, str, type Sender } from './types.js';

/** Pushover: `pushover://shoutrrr:<api token>@<user key>/?devices=a,b&priority=1` → `/1/messages.json` (a form). */
export const pushover: Sender = {
  async send({ url, values, message, base, http }) {
    const q = (k: string) => url.searchParams.get(k) ?? undefined;
    await http(`${base('https://api.pushover.net')}/1/messages.json`, {
      form: {
        token: str(values.password), user: str(values.username), title: cut(message.title, 250), message: cut(message.text, 1024),
        device: q('devices'), priority: q('priority'),
      },
    });
  },
};
