import { str, type Sender } from './types.js';

/**
 * A generic webhook: `generic+https://host/path?ContentType=…&MessageKey=message&TitleKey=title&RequestMethod=POST`
 * (shoutrrr's generic service; a plain http(s) URL too). JSON content: `{<TitleKey>: title, <MessageKey>: markdown}`
 * plus the target's properties; another content type: the markdown as the body. GET sends the two as query
 * parameters. Credentials in the URL become basic auth.
 */
const FORM_KEYS = new Set(['to', 'url', 'contentType', 'requestMethod', 'key', 'titleKey', 'insecure_tls']);

export const genericWebhook: Sender = {
  async send({ values, message, properties, http }) {
    const target = new URL(str(values.url));
    const method = (str(values.requestMethod) || 'POST').toUpperCase();
    const contentType = str(values.contentType) || 'application/json';
    const titleKey = str(values.titleKey) || 'title';
    const messageKey = str(values.key) || 'message';
    const headers: Record<string, string> = {};
    if (target.username || target.password) {
      const cred = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
      headers.authorization = `Basic ${Buffer.from(cred).toString('base64')}`;
      target.username = '';
      target.password = '';
    }
    // the target's own properties go along as extra fields (shoutrrr's extra data); the form's fields do not
    const extra = Object.fromEntries(Object.entries(properties).filter(([k]) => !FORM_KEYS.has(k)));
    if (method === 'GET') {
      target.searchParams.set(titleKey, message.title);
      target.searchParams.set(messageKey, message.markdown);
      await http(target.toString(), { method, headers });
      return;
    }
    if (contentType.includes('json')) {
      await http(target.toString(), { method, headers: { ...headers, 'content-type': contentType }, json: { ...extra, [titleKey]: message.title, [messageKey]: message.markdown } });
    } else {
      await http(target.toString(), { method, headers: { ...headers, 'content-type': contentType }, body: message.markdown });
    }
  },
};
