import type { ReactElement } from 'react';
import {
  Box20Regular, Cloud20Regular, Database20Regular, Globe20Regular, Grid20Regular, Organization20Regular,
  Server20Regular, Storage20Regular,
} from '@fluentui/react-icons';

// A component's `icon` names the reference's icon set, which we do not ship: the name (or else the type) picks the
// nearest Fluent icon, and an organisation mark stands for anything else.
const BY_NAME: [RegExp, ReactElement][] = [
  [/(postgres|mysql|mssql|sql|mongo|redis|database|db$)/i, <Database20Regular key="d" />],
  [/(aws|azure|gcp|cloud|s3|lambda)/i, <Cloud20Regular key="c" />],
  [/(http|url|dns|ingress|service|api|web)/i, <Globe20Regular key="g" />],
  [/(node|server|vm|ec2|host|kubernetes|k8s|cluster)/i, <Server20Regular key="s" />],
  [/(pod|container|docker)/i, <Box20Regular key="b" />],
  [/(disk|volume|pvc|storage|bucket)/i, <Storage20Regular key="v" />],
  [/(namespace|group|deployment)/i, <Grid20Regular key="n" />],
];

export function ComponentIcon({ icon, type }: { icon?: string | null; type?: string | null }) {
  const key = `${icon ?? ''} ${type ?? ''}`;
  const match = BY_NAME.find(([re]) => re.test(key));
  return (
    <span aria-hidden="true" style={{ display: 'inline-flex', flexShrink: 0 }}>
      {match ? match[1] : <Organization20Regular />}
    </span>
  );
}
