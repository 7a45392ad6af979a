import { alertmanagerCheck } from './alertmanager.js';
import { dnsCheck } from './dns.js';
import { elasticsearchCheck } from './elasticsearch.js';
import { execCheck } from './exec.js';
import { folderCheck } from './folder.js';
import { httpCheck } from './http.js';
import { icmpCheck } from './icmp.js';
import { mysqlCheck } from './mysql.js';
import { opensearchCheck } from './opensearch.js';
import { postgresCheck } from './postgres.js';
import { prometheusCheck } from './prometheus.js';
import { redisCheck } from './redis.js';
import { tcpCheck } from './tcp.js';
import type { CheckType } from './types.js';
import { webhookCheck } from './webhook.js';

/**
 * Every check type the runner knows, by Canary spec key (which is also `checks.type`). Adding a type is one import
 * and one line here.
 */
export const CHECK_TYPES: Readonly<Record<string, CheckType<any>>> = {
  http: httpCheck,
  tcp: tcpCheck,
  dns: dnsCheck,
  exec: execCheck,
  postgres: postgresCheck,
  mysql: mysqlCheck,
  redis: redisCheck,
  prometheus: prometheusCheck,
  alertmanager: alertmanagerCheck,
  folder: folderCheck,
  elasticsearch: elasticsearchCheck,
  opensearch: opensearchCheck,
  icmp: icmpCheck,
  // pushed, never scheduled: POST /api/canary/webhook/:id
  webhook: webhookCheck,
};

/** The type for a spec key, if this console runs it. */
export function checkTypeOf(key: string): CheckType<unknown> | undefined {
  return Object.hasOwn(CHECK_TYPES, key) ? CHECK_TYPES[key] : undefined;
}
