import { enc, field, query, REQUIRED, type ConnectionTypeDescriptor, type FieldValues } from './connection-fields.js';

const { username, password, insecureTls, prop } = field;

/** Placeholders the hydrator fills from the (possibly referenced) columns: the URL never holds a secret itself. */
export const USERNAME = '$(username)';
export const PASSWORD = '$(password)';

const n = (
  type: string,
  label: string,
  icon: string,
  fields: ConnectionTypeDescriptor['fields'],
  buildUrl: (v: FieldValues) => string,
): ConnectionTypeDescriptor => ({ type, label, icon, fields, hidden: false, notification: true, buildUrl });

const s = (v: FieldValues[string]) => (v === undefined || v === null ? '' : String(v));
const yes = (v: FieldValues[string]) => v === true || v === 'true';

/** `user@` when there is a user, else nothing. */
const userAt = (v: FieldValues[string]) => (s(v) ? `${enc(v)}@` : '');

/**
 * The notification types of spec 001 §3 (defaults of §5), each building the URL the reference stores: the
 * shoutrrr service URL (containrrr/shoutrrr's formats, as the reference UI writes them), with secrets as
 * `$(password)` / `$(username)`: the `username` column is always a placeholder too, even where it holds no secret (a
 * Slack channel), because the API shows a stored static value as `***` and a form saved as it came must not build
 * its URL from that. Other field values are percent-encoded where they sit in a path, user part or query;
 * hosts are written as typed. Where the reference's builder lost a field (zulip's bot mail, the generic webhook's
 * target), the field goes where shoutrrr reads it.
 */
export const NOTIFICATION_CONNECTION_TYPES: ConnectionTypeDescriptor[] = [
  n('discord', 'Discord', 'discord', [username('Webhook ID', REQUIRED, 'text'), password('Token', REQUIRED)], (v) =>
    `discord://${PASSWORD}@${USERNAME}`),
  n(
    'email',
    'Email',
    'email',
    [
      prop('host', 'Host', 'text', REQUIRED),
      prop('port', 'Port', 'number', { required: true, default: 587 }),
      insecureTls(),
      username(),
      password('Password', { hint: 'SMTP server password or hash (for OAuth2)' }),
      prop('from', 'From Address', 'text', REQUIRED),
      prop('fromName', 'From Name', 'text', REQUIRED),
      prop('to', 'To Address'),
      prop('encryptionMethod', 'Encryption method', 'select', {
        required: true,
        default: 'Auto',
        options: ['None', 'ExplicitTLS', 'ImplicitTLS', 'Auto'].map((o) => ({ value: o, label: o === 'Auto' ? 'Auto (default)' : o })),
      }),
      prop('authMethod', 'SMTP authentication method', 'select', {
        required: true,
        default: 'Unknown',
        options: ['None', 'Plain', 'CRAMMD5', 'Unknown', 'OAuth2'].map((o) => ({ value: o, label: o })),
      }),
    ],
    (v) =>
      `smtp://${USERNAME}:${PASSWORD}@${s(v.host)}:${s(v.port)}/` +
      query([
        ['UseStartTLS', String(v.encryptionMethod === 'ExplicitTLS')],
        ['SkipTLSVerify', String(yes(v.insecure_tls))],
        ['Encryption', v.encryptionMethod],
        ['Auth', v.authMethod],
        ['from', v.from],
        ['fromName', v.fromName],
        ['to', v.to],
      ]),
  ),
  n(
    'google_chat',
    'Google Chat',
    'google-chat',
    [username('Key', REQUIRED), password('Token', REQUIRED), prop('webhook', 'Webhook Name', 'text', REQUIRED)],
    (v) => `googlechat://chat.googleapis.com/v1/spaces/${enc(v.webhook)}/messages?key=${USERNAME}&token=${PASSWORD}`,
  ),
  n(
    'ifttt',
    'IFTTT',
    'ifttt',
    [
      username('Webhook ID', REQUIRED, 'text'),
      prop('events', 'Events', 'text', { required: true, hint: 'Comma-separated event names' }),
    ],
    (v) => `ifttt://${USERNAME}/${query([['events', v.events]])}`,
  ),
  n(
    'mattermost',
    'Mattermost',
    'mattermost',
    [
      username('Username', { hint: 'Override webhook user' }, 'text'),
      prop('host', 'Host', 'text', { required: true, hint: 'Mattermost server host (host:port)' }),
      password('Token', { required: true, hint: 'Webhook token' }),
      prop('channel', 'Channel', 'text', { hint: 'Override webhook channel' }),
    ],
    (v) => `mattermost://${s(v.username) ? `${USERNAME}@` : ''}${s(v.host)}/${PASSWORD}${s(v.channel) ? `/${enc(v.channel)}` : ''}`,
  ),
  n(
    'matrix',
    'Matrix',
    'matrix',
    [
      username('User', { hint: 'Username or empty when using access token' }, 'text'),
      password('Password', { required: true, hint: 'Password or access token' }),
      prop('host', 'Host', 'text', REQUIRED),
      insecureTls(),
    ],
    (v) => `matrix://${USERNAME}:${PASSWORD}@${s(v.host)}/?DisableTLS=${yes(v.insecure_tls)}`,
  ),
  n(
    'ntfy',
    'Ntfy',
    'ntfy',
    [
      username('Username', {}, 'text'),
      password(),
      prop('host', 'Host', 'text', { required: true, default: 'ntfy.sh', hint: 'Server hostname and port' }),
      prop('topic', 'Topic', 'text', { required: true, hint: 'Target topic name' }),
      insecureTls(),
    ],
    (v) =>
      `ntfy://${USERNAME}:${PASSWORD}@${s(v.host)}/${enc(v.topic)}?Scheme=${yes(v.insecure_tls) ? 'http' : 'https'}`,
  ),
  n(
    'opsgenie',
    'OpsGenie',
    'opsgenie',
    [
      prop('host', 'Host', 'text', { required: true, default: 'api.opsgenie.com' }),
      prop('port', 'Port', 'number', { required: true, default: 443 }),
      password('API Key', REQUIRED),
    ],
    (v) => `opsgenie://${s(v.host)}:${s(v.port)}/${PASSWORD}`,
  ),
  n(
    'pushbullet',
    'Pushbullet',
    'pushbullet',
    [password('Token', REQUIRED), prop('targets', 'Targets', 'text', { required: true, hint: 'Devices, #channels or e-mails, separated by /' })],
    // targets are path segments themselves (device/#channel/email): '#' must be encoded, '/' kept
    (v) => `pushbullet://${PASSWORD}/${s(v.targets).split('/').map(enc).join('/')}`,
  ),
  n(
    'pushover',
    'Pushover',
    'pushover',
    [username('User', REQUIRED, 'text'), password('Token', REQUIRED)],
    (v) => `pushover://shoutrrr:${PASSWORD}@${USERNAME}/`,
  ),
  n(
    'rocketchat',
    'Rocketchat',
    'rocketchat',
    [
      prop('user', 'Username'),
      prop('host', 'Host', 'text', REQUIRED),
      prop('port', 'Port', 'number', REQUIRED),
      username('Token A', REQUIRED),
      password('Token B', REQUIRED),
      prop('channel', 'Channel', 'text', REQUIRED),
    ],
    (v) => `rocketchat://${userAt(v.user)}${s(v.host)}:${s(v.port)}/${USERNAME}/${PASSWORD}/${enc(v.channel)}`,
  ),
  n(
    'slack',
    'Slack',
    'slack',
    [
      username('Channel', { required: true, hint: 'Channel to send messages to in Cxxxxxxxxxx format' }, 'text'),
      password('Bot Token', REQUIRED),
      prop('BotName', 'Bot Name'),
    ],
    (v) => `slack://${PASSWORD}@${USERNAME}${query([['botname', v.BotName]])}`,
  ),
  n(
    'teams',
    'Teams',
    'teams',
    [
      prop('group', 'Group'),
      prop('tenant', 'Tenant', 'text', REQUIRED),
      prop('altID', 'AltID', 'text', REQUIRED),
      prop('groupOwner', 'GroupOwner', 'text', REQUIRED),
      prop('host', 'Host', 'text', { required: true, default: 'outlook.office.com' }),
    ],
    (v) => `teams://${enc(v.group)}@${enc(v.tenant)}/${enc(v.altID)}/${enc(v.groupOwner)}?host=${s(v.host)}`,
  ),
  n(
    'telegram',
    'Telegram',
    'telegram',
    [password('Token', REQUIRED), username('Chats', { required: true, hint: 'Chat IDs or channel names (@channel-name), comma-separated' }, 'text')],
    (v) => `telegram://${PASSWORD}@telegram/?chats=${USERNAME}`,
  ),
  n(
    'zulip_chat',
    'Zulip Chat',
    'zulip',
    [
      username('BotMail', { required: true, hint: 'Bot e-mail address' }, 'text'),
      password('BotKey', REQUIRED),
      prop('host', 'Host', 'text', REQUIRED),
      prop('stream', 'Stream'),
      prop('topic', 'Topic'),
    ],
    (v) => `zulip://${USERNAME}:${PASSWORD}@${s(v.host)}/${query([['stream', v.stream], ['topic', v.topic]])}`,
  ),
  n(
    'generic_webhook',
    'Generic Webhook',
    'webhook',
    [
      prop('url', 'URL', 'text', { required: true, hint: 'The address the message is sent to' }),
      prop('contentType', 'Content Type', 'text', { default: 'application/json' }),
      prop('requestMethod', 'Request Method', 'select', {
        required: true,
        default: 'POST',
        options: [
          { value: 'POST', label: 'POST' },
          { value: 'GET', label: 'GET' },
        ],
      }),
      prop('key', 'Message Key', 'text', { required: true, default: 'message' }),
      prop('titleKey', 'Title Key', 'text', { required: true, default: 'title' }),
      insecureTls(),
    ],
    (v) => {
      const target = s(v.url);
      const q = query([
        ['ContentType', v.contentType],
        ['MessageKey', v.key],
        ['TitleKey', v.titleKey],
        ['RequestMethod', v.requestMethod],
        ['DisableTLS', String(yes(v.insecure_tls))],
      ]);
      // shoutrrr's generic service: `generic+https://host/path?...`; a target with its own query keeps it
      return `generic+${target}${target.includes('?') ? `&${q.slice(1)}` : q}`;
    },
  ),
];
