import { SendError } from './http.js';
import { str, type Sender } from './types.js';

/**
 * IFTTT: `ifttt://<webhook key>/?events=a,b[&value3=…]` → the Maker webhook of each event, with value1 the title,
 * value2 the text and value3 as given.
 */
export const ifttt: Sender = {
  async send({ url, values, message, base, http }) {
    const events = str(values.events).split(',').map((e) => e.trim()).filter(Boolean);
    if (!events.length) throw new SendError('ifttt: no events', false);
    const json = { value1: message.title, value2: message.text, value3: url.searchParams.get('value3') ?? '' };
    for (const e of events) {
      await http(`${base('https://maker.ifttt.com')}/trigger/${encodeURIComponent(e)}/with/key/${encodeURIComponent(str(values.username))}`, { json });
    }
  },
};
