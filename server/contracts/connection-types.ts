import { field, REQUIRED, type ConnectionTypeDescriptor } from './connection-fields.js';

const { url, username, password, certificate, insecureTls, prop } = field;

const d = (
  type: string,
  label: string,
  icon: string,
  fields: ConnectionTypeDescriptor['fields'],
  extra: Partial<ConnectionTypeDescriptor> = {},
): ConnectionTypeDescriptor => ({ type, label, icon, fields, hidden: false, notification: false, ...extra });

/** URL with a username and password, both required (the SQL servers, search, LDAP, Mongo). */
const credentialed = (tls: boolean) => [
  url(),
  username('Username', REQUIRED),
  password('Password', REQUIRED),
  ...(tls ? [insecureTls()] : []),
];

/** URL with optional credentials. */
const optionalCredentials = [url(), username(), password(), insecureTls()];

const AWS_FIELDS = [
  prop('region', 'Region'),
  prop('profile', 'Profile'),
  username('Access Key'),
  password('Secret Key'),
  insecureTls(),
];

/**
 * The connection types of spec 001 §3 that are not notification targets, one entry each (fields and where each
 * is stored; defaults of §5). Type extras live in `properties`; sftp's host is the `url` and its credentials stay
 * in their own columns, never in the URL.
 */
export const SYSTEM_CONNECTION_TYPES: ConnectionTypeDescriptor[] = [
  d('postgres', 'Postgres', 'postgres', credentialed(false)),
  d('mysql', 'MySQL', 'mysql', credentialed(false)),
  d('sql_server', 'SQL Server', 'sqlserver', credentialed(false)),
  d('http', 'HTTP', 'http', optionalCredentials),
  d('prometheus', 'Prometheus', 'prometheus', optionalCredentials),
  d('elasticsearch', 'Elasticsearch', 'elasticsearch', credentialed(true)),
  d('mongo', 'Mongo', 'mongo', credentialed(true)),
  d('ldap', 'LDAP', 'ldap', credentialed(true)),
  d('redis', 'Redis', 'redis', [
    prop('db', 'Database', 'number', { required: true, default: 0 }),
    url(),
    username(),
    password(),
    insecureTls(),
  ]),
  d('windows', 'Windows', 'windows', [
    username('Username', REQUIRED),
    password('Password', REQUIRED),
    prop('domain', 'Domain'),
  ]),
  d('google_cloud', 'Google Cloud', 'google-cloud', [url('Endpoint'), certificate('Certificate', REQUIRED)]),
  d('gcs', 'Google Cloud Storage', 'gcs', [url('Endpoint'), certificate('Certificate', REQUIRED)]),
  d('sftp', 'SFTP', 'sftp', [
    url('Host', { required: true, hint: 'Host name or address, without credentials' }),
    prop('port', 'Port', 'number', { default: 22 }),
    username('Username', REQUIRED),
    password('Password', REQUIRED),
  ]),
  d('aws', 'AWS', 'aws', AWS_FIELDS),
  d('s3', 'AWS S3', 'aws-s3', [...AWS_FIELDS, prop('bucket', 'Bucket', 'text', REQUIRED)]),
  d('kubernetes', 'Kubernetes', 'kubernetes', [
    certificate('Kubeconfig', { hint: 'The kubeconfig to reach the cluster with' }),
  ]),
  d('azure_devops', 'Azure Devops', 'azure-devops', [
    username('Organization', REQUIRED, 'text'),
    password('Personal Access Token', REQUIRED),
  ]),
  d('azure', 'Azure', 'azure', [
    username('Client ID', REQUIRED, 'text'),
    password('Client Secret', REQUIRED),
    prop('tenant', 'Tenant ID', 'text', REQUIRED),
  ]),
  d('github', 'GitHub', 'github', [password('Personal Access Token', REQUIRED)]),
  d('gitlab', 'GitLab', 'gitlab', [password('Personal Access Token', REQUIRED)]),
  d('restic', 'Restic', 'restic', [
    password('Password', REQUIRED),
    url('Repository URL'),
    prop('awsConnectionName', 'AWS Connection Name'),
    prop('accessKey', 'Access Key', 'secret'),
    prop('secretKey', 'Secret Key', 'secret'),
  ]),
  d('smb', 'SMB', 'smb', [
    url('Server', { required: true, hint: 'Host name or address' }),
    prop('port', 'Port', 'number', { default: 445 }),
    prop('share', 'Share', 'text', REQUIRED),
    prop('domain', 'Domain'),
    username(),
    password(),
  ]),
  d('dynatrace', 'Dynatrace', 'dynatrace', [
    url('Host'),
    password('API Key', REQUIRED),
    prop('scheme', 'Scheme', 'select', {
      required: true,
      default: 'https',
      options: [
        { value: 'https', label: 'https' },
        { value: 'http', label: 'http' },
      ],
    }),
  ]),
  d('git', 'Git', 'git', [
    url(),
    prop('authentication', 'Authentication', 'select', {
      required: true,
      default: 'basic',
      options: [
        { value: 'basic', label: 'Basic' },
        { value: 'ssh', label: 'SSH' },
      ],
    }),
    username('Username', { when: { field: 'authentication', equals: 'basic' } }),
    password('Password', { when: { field: 'authentication', equals: 'basic' } }),
    certificate('SSH Key', { when: { field: 'authentication', equals: 'ssh' } }),
    prop('ref', 'Ref', 'text', { required: true, default: 'main' }),
  ]),
  d('folder', 'Folder', 'folder', [prop('path', 'Path', 'text', REQUIRED)]),
  // kept so rows of this type still open; not offered as a tile (spec 001 §3)
  d('jmeter', 'JMeter', 'jmeter', [url('Host'), prop('port', 'Port', 'number')], { hidden: true }),
];
