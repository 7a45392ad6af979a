import { str, type Sender } from './types.js';

/**
 * Microsoft Teams: `teams://<group>@<tenant>/<altID>/<groupOwner>?host=<host>` → the incoming webhook
 * `https://<host>/webhookb2/<group>@<tenant>/IncomingWebhook/<altID>/<groupOwner>`, the message's card (or a
 * MessageCard with title and markdown).
 */
export const teams: Sender = {
  async send({ values, message, base, http }) {
    const e = (v: unknown) => encodeURIComponent(str(v as string));
    const path = `/webhookb2/${e(values.group)}@${e(values.tenant)}/IncomingWebhook/${e(values.altID)}/${e(values.groupOwner)}`;
    const card = message.teams ?? {
      '@type': 'MessageCard',
      '@context': 'https://schema.org/extensions',
      summary: message.title,
      title: message.title,
      text: message.markdown,
    };
    await http(`${base(`https://${str(values.host) || 'outlook.office.com'}`)}${path}`, { json: card });
  },
};
