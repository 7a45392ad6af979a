import type { ReactNode } from 'react';
import { makeStyles, Text, tokens } from '@fluentui/react-components';

const useStyles = makeStyles({
  root: {
    display: 'flex',
    flexDirection: 'column',
    alignItems: 'center',
    justifyContent: 'center',
    textAlign: 'center',
    gap: tokens.spacingVerticalM,
    padding: `${tokens.spacingVerticalXXXL} ${tokens.spacingHorizontalXXL}`,
    maxWidth: '520px',
    margin: '0 auto',
  },
  icon: {
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'center',
    width: '64px',
    height: '64px',
    borderRadius: tokens.borderRadiusCircular,
    backgroundColor: tokens.colorNeutralBackground3,
    color: tokens.colorNeutralForeground3,
    fontSize: '32px',
  },
  title: { margin: 0 },
  description: { margin: 0, color: tokens.colorNeutralForeground2 },
  actions: { display: 'flex', gap: tokens.spacingHorizontalS, marginTop: tokens.spacingVerticalS },
});

export interface EmptyStateProps {
  icon?: ReactNode;
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
  /** `alert` for errors a screen reader should announce. */
  role?: 'status' | 'alert';
}

/** The one way a screen says "nothing here" or "you cannot be here". */
export function EmptyState({ icon, title, description, actions, role = 'status' }: EmptyStateProps) {
  const s = useStyles();
  return (
    <div className={s.root} role={role}>
      {icon && <div className={s.icon}>{icon}</div>}
      <Text as="h2" size={500} weight="semibold" className={s.title}>
        {title}
      </Text>
      {description && (
        <Text as="p" size={300} className={s.description}>
          {description}
        </Text>
      )}
      {actions && <div className={s.actions}>{actions}</div>}
    </div>
  );
}
