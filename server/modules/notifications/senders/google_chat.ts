import { str, type Sender } from './types.js';

/** Google Chat: `googlechat://chat.googleapis.com/v1/spaces/<space>/messages?key=…&token=…` → that webhook. */
export const googleChat: Sender = {
  async send({ url, message, base, http }) {
    const target = `${base(`https://${url.host || 'chat.googleapis.com'}`)}${url.pathname}${url.search}`;
    await http(target, { json: { text: `*${message.title}*\n${str(message.text)}` } });
  },
};
