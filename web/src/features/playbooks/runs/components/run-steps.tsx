import type { ReactElement } from 'react';
import { makeStyles, mergeClasses, Spinner, tokens } from '@fluentui/react-components';
import {
  ArrowForward20Regular, ArrowSync20Regular, CheckmarkCircle20Filled, Clock20Regular, DismissCircle20Filled,
  PauseCircle20Regular, Timer20Regular,
} from '@fluentui/react-icons';
import { runStatusLabel } from '../../../../components/playbooks/run-status';
import { durationText, isSelectable, scheduledIn, type StepAction } from '../model';

const useStyles = makeStyles({
  list: { listStyle: 'none', margin: 0, padding: 0, display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXXS },
  step: {
    display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, width: '100%', textAlign: 'start',
    padding: `${tokens.spacingVerticalS} ${tokens.spacingHorizontalM}`, borderRadius: tokens.borderRadiusMedium,
    border: `${tokens.strokeWidthThin} solid transparent`, backgroundColor: 'transparent', color: tokens.colorNeutralForeground1,
    fontFamily: tokens.fontFamilyBase, fontSize: tokens.fontSizeBase300, cursor: 'pointer',
    ':hover': { backgroundColor: tokens.colorNeutralBackground1Hover },
  },
  selected: { backgroundColor: tokens.colorNeutralBackground1Selected, border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke1}` },
  disabled: { cursor: 'default', color: tokens.colorNeutralForeground3, ':hover': { backgroundColor: 'transparent' } },
  name: { flex: 1, minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
  meta: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200, whiteSpace: 'nowrap' },
  ok: { color: tokens.colorPaletteGreenForeground1 },
  bad: { color: tokens.colorPaletteRedForeground1 },
  neutral: { color: tokens.colorNeutralForeground3 },
  brand: { color: tokens.colorBrandForeground1 },
});

function StatusIcon({ status }: { status: string }): ReactElement {
  const s = useStyles();
  switch (status) {
    case 'completed':
      return <CheckmarkCircle20Filled className={s.ok} aria-hidden />;
    case 'failed':
    case 'timed_out':
    case 'cancelled':
      return <DismissCircle20Filled className={s.bad} aria-hidden />;
    case 'running':
      return <Spinner size="extra-tiny" aria-hidden />;
    case 'sleeping':
      return <Timer20Regular className={s.brand} aria-hidden />;
    case 'waiting':
      return <PauseCircle20Regular className={s.brand} aria-hidden />;
    case 'retrying':
      return <ArrowSync20Regular className={s.brand} aria-hidden />;
    case 'skipped':
      return <ArrowForward20Regular className={s.neutral} aria-hidden />;
    default:
      return <Clock20Regular className={s.neutral} aria-hidden />;
  }
}

/** What the step shows on the right: its duration, or when a sleeping one wakes up ("scheduled in 3m"). */
export function stepMeta(step: StepAction, now: number): string {
  if (step.status === 'sleeping') return scheduledIn(step.scheduled_time, now);
  if (step.status === 'skipped') return 'skipped';
  return durationText(step.start_time, step.end_time, now);
}

export interface RunStepsProps {
  steps: StepAction[];
  selected: string | null;
  onSelect: (id: string) => void;
  now: number;
}

/** The run's actions in order with their status; skipped ones cannot be opened. */
export function RunSteps({ steps, selected, onSelect, now }: RunStepsProps) {
  const s = useStyles();
  return (
    <ul className={s.list} aria-label="Actions">
      {steps.map((step) => {
        const selectable = isSelectable(step);
        const label = `${step.name}: ${runStatusLabel(step.status)}`;
        return (
          <li key={step.id}>
            <button
              type="button"
              className={mergeClasses(s.step, step.id === selected && s.selected, !selectable && s.disabled)}
              aria-current={step.id === selected ? 'true' : undefined}
              aria-disabled={!selectable || undefined}
              aria-label={label}
              title={label}
              data-action-status={step.status}
              onClick={() => selectable && onSelect(step.id)}
            >
              <StatusIcon status={step.status} />
              <span className={s.name}>{step.name}</span>
              <span className={s.meta}>{stepMeta(step, now)}</span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}
