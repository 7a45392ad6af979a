import { Box20Regular, HeartPulse20Regular, Organization20Regular, Question20Regular } from '@fluentui/react-icons';

/** A resource kind's icon (check, canary, component, config), named for screen readers. */
export function ResourceKindIcon({ kind }: { kind: string }) {
  const label = kind || 'resource';
  switch (kind) {
    case 'check':
    case 'canary':
      return <HeartPulse20Regular aria-label={label} role="img" />;
    case 'component':
      return <Organization20Regular aria-label={label} role="img" />;
    case 'config':
      return <Box20Regular aria-label={label} role="img" />;
    default:
      return <Question20Regular aria-label={label} role="img" />;
  }
}
