import type { ReactNode } from 'react';
import { makeStyles, Spinner, tokens } from '@fluentui/react-components';
import { Logo } from './logo';
import { EmptyState, type EmptyStateProps } from './empty-state';

const useStyles = makeStyles({
  root: {
    minHeight: '100vh',
    display: 'flex',
    flexDirection: 'column',
    alignItems: 'center',
    justifyContent: 'center',
    gap: tokens.spacingVerticalXL,
    backgroundColor: tokens.colorNeutralBackground2,
    padding: tokens.spacingHorizontalXL,
  },
});

/** A screen with nothing around it: start-up, provisioning, fatal errors. */
export function FullPageState(props: Partial<EmptyStateProps> & { busy?: string; children?: ReactNode }) {
  const s = useStyles();
  return (
    <main className={s.root}>
      <Logo size={36} />
      {props.busy ? (
        <Spinner size="medium" label={props.busy} labelPosition="below" />
      ) : (
        props.title && <EmptyState {...(props as EmptyStateProps)} />
      )}
      {props.children}
    </main>
  );
}
