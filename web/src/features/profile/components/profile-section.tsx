import type { ReactNode } from 'react';
import { makeStyles, MessageBar, MessageBarBody, Text, tokens } from '@fluentui/react-components';
import type { TimedMessage } from './use-timed-message';

const useStyles = makeStyles({
  card: {
    display: 'flex',
    flexDirection: 'column',
    gap: tokens.spacingVerticalM,
    padding: tokens.spacingHorizontalXL,
    borderRadius: tokens.borderRadiusLarge,
    backgroundColor: tokens.colorNeutralBackground1,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
  },
  heading: { margin: 0, display: 'block' },
  muted: { margin: 0, color: tokens.colorNeutralForeground2 },
});

/** One card of Your Profile: a heading, a line about it, its form and the form's message. */
export function ProfileSection(props: {
  id: string;
  title: string;
  description: string;
  message: TimedMessage;
  children: ReactNode;
}) {
  const s = useStyles();
  return (
    <section className={s.card} aria-labelledby={props.id}>
      <Text as="h3" id={props.id} size={500} weight="semibold" className={s.heading}>
        {props.title}
      </Text>
      <Text as="p" className={s.muted}>
        {props.description}
      </Text>
      {props.message && (
        <MessageBar intent={props.message.intent} role={props.message.intent === 'error' ? 'alert' : 'status'}>
          <MessageBarBody>{props.message.text}</MessageBarBody>
        </MessageBar>
      )}
      {props.children}
    </section>
  );
}
