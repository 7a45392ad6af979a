import type { ReactElement } from 'react';
import {
  Book24Regular, CloudCube24Regular, Code24Regular, DatabaseMultiple20Regular, GlobeDesktop24Regular, Mail24Regular,
  ServerMultiple20Regular, WrenchScrewdriver24Regular,
} from '@fluentui/react-icons';

// A playbook's `icon` names the reference's icon set, which is not shipped: the name picks the nearest Fluent icon
const BY_NAME: [RegExp, ReactElement][] = [
  [/(postgres|mysql|sql|mongo|redis|database|db$)/i, <DatabaseMultiple20Regular key="d" />],
  [/(aws|azure|gcp|cloud|s3|lambda)/i, <CloudCube24Regular key="c" />],
  [/(http|url|dns|ingress|api|web|globe)/i, <GlobeDesktop24Regular key="g" />],
  [/(node|server|vm|host|kubernetes|k8s|cluster|pod|container)/i, <ServerMultiple20Regular key="s" />],
  [/(bash|shell|script|terminal|code|exec)/i, <Code24Regular key="x" />],
  [/(mail|email|slack|notification|bell)/i, <Mail24Regular key="m" />],
  [/(fix|repair|restart|wrench|tool)/i, <WrenchScrewdriver24Regular key="w" />],
];

export function PlaybookIcon({ icon }: { icon?: string | null }) {
  const match = icon ? BY_NAME.find(([re]) => re.test(icon)) : undefined;
  return (
    <span aria-hidden="true" style={{ display: 'inline-flex', flexShrink: 0 }}>
      {match ? match[1] : <Book24Regular />}
    </span>
  );
}
