import type { ReactElement } from 'react';
// families /health does not use (check-icon.tsx): a shared icon module would be split out of /health's chunks
import {
  Box20Regular, CloudCube20Regular, DatabaseMultiple20Regular, GlobeDesktop20Regular, GridDots20Regular,
  Organization20Regular, ServerMultiple20Regular, Storage20Regular,
} from '@fluentui/react-icons';

// A component's `icon` names the reference's icon set, which we do not ship: the name (or else the type) picks the
// nearest Fluent icon, and an organisation mark stands for anything else.
const BY_NAME: [RegExp, ReactElement][] = [
  [/(postgres|mysql|mssql|sql|mongo|redis|database|db$)/i, <DatabaseMultiple20Regular key="d" />],
  [/(aws|azure|gcp|cloud|s3|lambda)/i, <CloudCube20Regular key="c" />],
  [/(http|url|dns|ingress|service|api|web)/i, <GlobeDesktop20Regular key="g" />],
  [/(node|server|vm|ec2|host|kubernetes|k8s|cluster)/i, <ServerMultiple20Regular key="s" />],
  [/(pod|container|docker)/i, <Box20Regular key="b" />],
  [/(disk|volume|pvc|storage|bucket)/i, <Storage20Regular key="v" />],
  [/(namespace|group|deployment)/i, <GridDots20Regular key="n" />],
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
