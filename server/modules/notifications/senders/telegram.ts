import { SendError } from './http.js';
import { cut, str, type Sender } from './types.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Telegram: `telegram://<bot token>@telegram/?chats=<id>,@channel` → `sendMessage` once per chat (HTML parse mode). */
export const telegram: Sender = {
  async send({ values, message, base, http }) {
    const chats = str(values.username).split(',').map((c) => c.trim()).filter(Boolean);
    if (!chats.length) throw new SendError('telegram: no chats', false);
    const text = cut(`<b>${esc(message.title)}</b>\n${esc(message.text)}`, 4096);
    for (const chat of chats) {
      await http(`${base('https://api.telegram.org')}/bot${str(values.password)}/sendMessage`, {
        json: { chat_id: chat, text, parse_mode: 'HTML' },
      });
    }
  },
};
