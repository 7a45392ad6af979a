import { cut, str, type Sender } from './types.js';

/**
 * OpsGenie: `opsgenie://<host>[:port]/<api key>[?alias=…&priority=P1&tags=a,b&responders=…]` → `/v2/alerts`
 * (GenieKey auth): the title as the alert's message, the text as its description.
 */
export const opsgenie: Sender = {
  async send({ url, values, message, base, http }) {
    const port = str(values.port);
    const host = `${str(values.host) || 'api.opsgenie.com'}${port && port !== '443' ? `:${port}` : ''}`;
    const json: Record<string, unknown> = { message: cut(message.title, 130), description: cut(message.text, 15_000) };
    for (const [k, v] of url.searchParams) {
      if (['tags', 'actions'].includes(k)) json[k] = v.split(',');
      else if (['alias', 'entity', 'source', 'priority', 'user', 'note'].includes(k)) json[k] = v;
    }
    await http(`${base(`https://${host}`)}/v2/alerts`, { headers: { authorization: `GenieKey ${str(values.password)}` }, json });
  },
};
