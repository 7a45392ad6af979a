import { str, type Sender } from './types.js';

/**
 * Pushbullet: `pushbullet://<access token>/<target>[/<target>…]` → `/v2/pushes`, a note per target (`#tag` a channel,
 * an address an email, else a device iden); none pushes to every device of the account.
 */
export const pushbullet: Sender = {
  async send({ values, message, base, http }) {
    const targets = str(values.targets).split('/').filter(Boolean);
    const note = { type: 'note', title: message.title, body: message.text };
    const to = (t: string) => (t.startsWith('#') ? { channel_tag: t.slice(1) } : t.includes('@') ? { email: t } : { device_iden: t });
    for (const target of targets.length ? targets.map(to) : [{}]) {
      await http(`${base('https://api.pushbullet.com')}/v2/pushes`, { headers: { 'access-token': str(values.password) }, json: { ...note, ...target } });
    }
  },
};
