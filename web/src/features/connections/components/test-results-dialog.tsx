import { makeStyles, MessageBar, MessageBarBody, Spinner, tokens } from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import { TEST_TEXT, type TestOutcome } from '../api';

const useStyles = makeStyles({
  pre: {
    margin: `${tokens.spacingVerticalS} 0 0`,
    padding: tokens.spacingHorizontalM,
    maxHeight: '320px',
    overflow: 'auto',
    backgroundColor: tokens.colorNeutralBackground3,
    borderRadius: tokens.borderRadiusMedium,
    fontFamily: tokens.fontFamilyMonospace,
    fontSize: tokens.fontSizeBase200,
    whiteSpace: 'pre-wrap',
    wordBreak: 'break-word',
  },
});

/** 'Test Connection Results' (spec 001 §2, texts of §8); open while the test runs, with a spinner. */
export function TestResultsDialog({ outcome, running, onClose }: { outcome: TestOutcome | null; running: boolean; onClose: () => void }) {
  const s = useStyles();
  return (
    <AppDialog open onOpenChange={(o) => !o && onClose()} title="Test Connection Results" size="small">
      <div aria-live="polite">
        {running || !outcome ? (
          <Spinner size="small" label="Testing connection…" />
        ) : outcome.ok ? (
          <MessageBar intent="success">
            <MessageBarBody>{TEST_TEXT.success}</MessageBarBody>
          </MessageBar>
        ) : (
          <>
            <MessageBar intent="error" role="alert">
              <MessageBarBody>{outcome.message}</MessageBarBody>
            </MessageBar>
            {outcome.json && <pre className={s.pre}>{outcome.json}</pre>}
          </>
        )}
      </div>
    </AppDialog>
  );
}
