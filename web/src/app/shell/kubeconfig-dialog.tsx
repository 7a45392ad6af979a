import { useState } from 'react';
import { Button, Link as FluentLink, makeStyles, MessageBar, MessageBarBody, Text, tokens } from '@fluentui/react-components';
import { ArrowDownload20Regular, Copy16Regular } from '@fluentui/react-icons';
import { AppDialog } from '../../components/app-dialog';
import { api, errorMessage } from '../../lib/api-client';
import { KUBECONFIG_DOCS_URL } from '../../lib/brand';
import { copyToClipboard } from '../../lib/clipboard';
import { useSession } from '../session-context';

export const KUBECONFIG_URL = '/api/kubeconfig';

/**
 * The downloaded file's name derives from the backend host (spec 000, "Kubeconfig dialog"): the server names it after
 * its public URL's host in Content-Disposition; until a download, the page's host stands in for it.
 */
export function kubeconfigFileName(host = window.location.hostname): string {
  return `${host.replace(/[^\w.-]/g, '_')}-kubeconfig.yaml`;
}

/** The file name of a `Content-Disposition: attachment; filename="..."` header, when it has a safe one. */
export function attachmentName(header: string | null): string | null {
  const name = header && /filename="?([^";]+)"?/i.exec(header)?.[1];
  return name && /^[\w.-]+$/.test(name) ? name : null;
}

/** Saves text as a file through a temporary link (the same download the browser would do for the attachment). */
function saveFile(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/yaml' }));
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
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

/**
 * "Download and install kubeconfig": a kubeconfig for kubectl through the console's cluster proxy. The file is
 * fetched rather than opened in a tab, so a refusal (a role without kubernetes-proxy write) or an error shows here
 * instead of as a JSON page, and the command below names the file the server actually sent.
 */
export function KubeconfigDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const s = useStyles();
  const session = useSession();
  const allowed = session.can('kubernetes-proxy', 'write');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<{ file: string; plainHttp: boolean } | null>(null);
  const file = saved?.file ?? kubeconfigFileName();
  const command = `kubectl --kubeconfig ~/Downloads/${file} get canaries`;

  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      let name: string | null = null;
      const text = await api.get<string>(KUBECONFIG_URL, {
        headers: { accept: 'text/yaml' },
        onHeaders: (h) => (name = attachmentName(h.get('content-disposition'))),
      });
      const fileName = name ?? kubeconfigFileName();
      saveFile(fileName, text);
      // over plain http the file carries the token in its server URL (server/lib/kubeproxy-path.ts)
      setSaved({ file: fileName, plainHttp: /^\s*server:\s*http:/m.test(text) });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

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
              It holds a new access token for your account (listed under your tokens, valid for 90 days unless your
              organisation set another default): kubectl then acts with your console role. Keep it private.
            </Text>
            {allowed ? (
              <Button appearance="primary" icon={<ArrowDownload20Regular />} disabled={busy} onClick={() => void download()}>
                {busy ? 'Downloading…' : saved ? 'Download again' : 'Download'}
              </Button>
            ) : (
              <MessageBar intent="info">
                <MessageBarBody>Downloading a kubeconfig needs the admin or editor role.</MessageBarBody>
              </MessageBar>
            )}
            {error && (
              <MessageBar intent="error" role="alert">
                <MessageBarBody>{error}</MessageBarBody>
              </MessageBar>
            )}
            {saved && (
              <Text role="status" className={s.muted}>
                Saved as <code>{saved.file}</code>.
              </Text>
            )}
            {saved?.plainHttp && (
              <MessageBar intent="warning">
                <MessageBarBody>
                  The console&apos;s public address is plain HTTP: the token travels unencrypted and is part of the
                  server address in this file (kubectl sends credentials only over HTTPS otherwise). Keep the file
                  private, and serve the console over HTTPS (an ingress with TLS, PUBLIC_URL set to it) beyond a
                  laptop.
                </MessageBarBody>
              </MessageBar>
            )}
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
