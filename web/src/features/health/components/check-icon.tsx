import type { ReactElement } from 'react';
import {
  Database20Regular,
  Globe20Regular,
  HeartPulse20Regular,
  PlugConnected20Regular,
  Server20Regular,
  Shield20Regular,
  Cloud20Regular,
  Code20Regular,
} from '@fluentui/react-icons';

const BY_TYPE: [RegExp, ReactElement][] = [
  [/^(http|https)$/i, <Globe20Regular key="h" />],
  [/^(tcp|icmp|ping|dns)$/i, <PlugConnected20Regular key="t" />],
  [/(postgres|mysql|mssql|mongo|redis|sql|elasticsearch|opensearch)/i, <Database20Regular key="d" />],
  [/(tls|cert|ldap)/i, <Shield20Regular key="s" />],
  [/(kubernetes|pod|namespace|helm)/i, <Server20Regular key="k" />],
  [/(s3|gcs|aws|azure|cloudwatch|prometheus)/i, <Cloud20Regular key="c" />],
  [/(exec|javascript|junit|test)/i, <Code20Regular key="e" />],
];

/** A check's icon by its type (the check's own `icon` names the reference's icon set, which we do not ship). */
export function CheckIcon({ type }: { type: string }) {
  const match = BY_TYPE.find(([re]) => re.test(type));
  return <span aria-hidden="true" style={{ display: 'inline-flex', flexShrink: 0 }}>{match ? match[1] : <HeartPulse20Regular />}</span>;
}
