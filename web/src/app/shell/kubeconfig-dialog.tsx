import { Button, Link as FluentLink, makeStyles, Text, tokens } from '@fluentui/react-components';
import { ArrowDownload20Regular, Copy16Regular } from '@fluentui/react-icons';
import { AppDialog } from '../../components/app-dialog';
import { KUBECONFIG_DOCS_URL } from '../../lib/brand';
import { copyToClipboard } from '../../lib/clipboard';

export const KUBECONFIG_URL = '/api/kubeconfig';

/** The downloaded file's name derives from the backend host (spec 000, "Kubeconfig dialog"). */
export function kubeconfigFileName(host = window.location.hostname): string {
  return `${host.replace(/[^\w.-]/g, '_')}-kubeconfig.yaml`;
}

const useStyles = makeStyles({
  steps: {
    listStyleType: 'none',
    margin: 0,
    padding: 0,
    display: 'flex',
    flexDirection: 'column',
    gap: tokens.spacingVerticalXL,
  },
  step: { display: 'flex', gap: tokens.spacingHorizontalM },
  number: {
    flexShrink: 0,
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'center',
    width: '24px',
    height: '24px',
    borderRadius: tokens.borderRadiusCircular,
    backgroundColor: tokens.colorBrandBackground2,
    color: tokens.colorBrandForeground2,
    fontWeight: tokens.fontWeightSemibold,
    fontSize: tokens.fontSizeBase200,
  },
  stepBody: {
    flex: 1,
    minWidth: 0,
    display: 'flex',
    flexDirection: 'column',
    gap: tokens.spacingVerticalS,
    alignItems: 'flex-start',
    paddingTop: '2px',
  },
  code: {
    display: 'flex',
    alignItems: 'center',
    gap: tokens.spacingHorizontalS,
    width: '100%',
    boxSizing: 'border-box',
    padding: `${tokens.spacingVerticalS} ${tokens.spacingHorizontalM}`,
    backgroundColor: tokens.colorNeutralBackground3,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusMedium,
    fontFamily: tokens.fontFamilyMonospace,
    fontSize: tokens.fontSizeBase200,
  },
  command: { flex: 1, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' },
  muted: { color: tokens.colorNeutralForeground2 },
});

/** "Download and install kubeconfig": a kubeconfig for kubectl through the console's cluster proxy. */
export function KubeconfigDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const s = useStyles();
  const file = kubeconfigFileName();
  const command = `kubectl --kubeconfig ~/Downloads/${file} get canaries`;
  return (
    <AppDialog open={open} onOpenChange={onOpenChange} title="Download and install kubeconfig" size="medium" helpUrl={KUBECONFIG_DOCS_URL}>
      <ol className={s.steps}>
        <li className={s.step}>
          <span className={s.number} aria-hidden>
            1
          </span>
          <div className={s.stepBody}>
            <Text weight="semibold">Download the kubeconfig file</Text>
            <Text className={s.muted}>
              It holds an access token for your account: kubectl then acts with your console role. Keep it private.
            </Text>
            <Button
              appearance="primary"
              icon={<ArrowDownload20Regular />}
              onClick={() => window.open(KUBECONFIG_URL, '_blank', 'noopener')}
            >
              Download
            </Button>
          </div>
        </li>
        <li className={s.step}>
          <span className={s.number} aria-hidden>
            2
          </span>
          <div className={s.stepBody}>
            <Text weight="semibold">Run kubectl with the downloaded file</Text>
            <div className={s.code}>
              <code className={s.command}>{command}</code>
              <Button
                size="small"
                appearance="subtle"
                icon={<Copy16Regular />}
                aria-label="Copy command"
                onClick={() => void copyToClipboard(command)}
              />
            </div>
            <Text className={s.muted}>
              Or save it as <code>~/.kube/config</code> to make it the default.{' '}
              <FluentLink href={KUBECONFIG_DOCS_URL} target="_blank" rel="noreferrer" inline>
                Learn more
              </FluentLink>
            </Text>
          </div>
        </li>
      </ol>
    </AppDialog>
  );
}
