import { SendError } from './http.js';
import { cut, str, type Sender } from './types.js';

/**
 * Slack: `slack://<bot token>@<channel>` → `chat.postMessage` with the Bearer token, the message's blocks (or the
 * markdown as mrkdwn text) and `username` from `botname`; Slack's `{ok: false, error}` answer is an error
 * (ratelimited is retried). shoutrrr's webhook form `slack://hook:<a-b-c>@webhook` posts to hooks.slack.com.
 */
export const slack: Sender = {
  async send({ values, message, base, http }) {
    const token = str(values.password);
    const text = message.slack?.text ?? `*${message.title}*\n${message.markdown}`;
    const blocks = message.slack?.blocks;
    if (token.startsWith('hook-')) {
      const path = token.slice('hook-'.length).split('-').join('/');
      await http(`${base('https://hooks.slack.com')}/services/${path}`, { json: { text, ...(blocks && { blocks }) } });
      return;
    }
    const res = await http(`${base('https://slack.com')}/api/chat.postMessage`, {
      headers: { authorization: `Bearer ${token}` },
      json: { channel: str(values.username), text: cut(text, 40_000), ...(blocks && { blocks }), ...(values.BotName ? { username: str(values.BotName) } : {}) },
    });
    const body = res.json as { ok?: boolean; error?: string } | undefined;
    if (body && body.ok === false) throw new SendError(`slack: ${body.error ?? 'not ok'}`, body.error === 'ratelimited');
  },
};
