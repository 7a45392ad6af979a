import { emailTester } from './email.js';
import { folderTester } from './folder.js';
import { gitTester } from './git.js';
import { httpTester } from './http.js';
import { kubernetesTester } from './kubernetes.js';
import { ldapTester } from './ldap.js';
import { mongoTester } from './mongo.js';
import { mysqlTester } from './mysql.js';
import { postgresTester } from './postgres.js';
import { prometheusTester } from './prometheus.js';
import { redisTester } from './redis.js';
import { searchTester } from './search.js';
import { sftpTester } from './sftp.js';
import { smbTester } from './smb.js';
import type { Tester } from './types.js';

export { ConnectionTestError, type HydratedConnection, type Tester, type TesterContext } from './types.js';

/** The connection types that can be tested, one line each (a type not here answers 501). */
export const TESTERS: Readonly<Record<string, Tester>> = {
  postgres: postgresTester,
  mysql: mysqlTester,
  redis: redisTester,
  http: httpTester,
  prometheus: prometheusTester,
  elasticsearch: searchTester('Elasticsearch'),
  opensearch: searchTester('OpenSearch'),
  kubernetes: kubernetesTester,
  folder: folderTester,
  git: gitTester,
  email: emailTester,
  ldap: ldapTester,
  sftp: sftpTester,
  smb: smbTester,
  mongo: mongoTester,
};

/** The tester of a connection type (case-insensitive), or undefined when the type cannot be tested. */
export function testerFor(type: string): Tester | undefined {
  const t = type.trim().toLowerCase();
  return Object.hasOwn(TESTERS, t) ? TESTERS[t] : undefined;
}
