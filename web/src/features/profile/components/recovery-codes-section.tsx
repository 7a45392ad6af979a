import { useState } from 'react';
import { Button, makeStyles, MessageBar, MessageBarBody, Spinner, Text, tokens } from '@fluentui/react-components';
import { ArrowDownload16Regular, Copy16Regular } from '@fluentui/react-icons';
import type { SelfServiceFlow } from '@contracts/identity';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { copyToClipboard } from '../../../lib/clipboard';
import { lookupState } from '../flow-nodes';
import { ProfileSection } from './profile-section';
import { useSettingsAction } from './use-settings-action';

const useStyles = makeStyles({
  codes: {
    display: 'grid',
    gridTemplateColumns: 'repeat(2, max-content)',
    columnGap: tokens.spacingHorizontalXXL,
    rowGap: tokens.spacingVerticalXS,
    margin: 0,
    padding: tokens.spacingHorizontalL,
    listStyle: 'none',
    fontFamily: tokens.fontFamilyMonospace,
    fontSize: tokens.fontSizeBase400,
    backgroundColor: tokens.colorNeutralBackground3,
    borderRadius: tokens.borderRadiusMedium,
  },
  used: { textDecorationLine: 'line-through', color: tokens.colorNeutralForeground3 },
  actions: { display: 'flex', gap: tokens.spacingHorizontalS, flexWrap: 'wrap' },
  muted: { margin: 0, color: tokens.colorNeutralForeground2 },
});

/** Saves the codes as a text file (one a line), named after the console. */
function download(codes: string[]) {
  const url = URL.createObjectURL(new Blob([`${codes.join('\n')}\n`], { type: 'text/plain' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = 'recovery-codes.txt';
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

type Confirming = 'regenerate' | 'disable' | null;

/**
 * Recovery codes (lookup secrets): 10 single-use codes for when the authenticator app or key is not at hand. New codes
 * are shown once and only count after "I have saved these codes"; regenerating replaces the old ones.
 */
export function RecoveryCodesSection({ flow }: { flow: SelfServiceFlow }) {
  const s = useStyles();
  const lookup = lookupState(flow);
  const action = useSettingsAction();
  const [confirming, setConfirming] = useState<Confirming>(null);
  if (!lookup.available) return null;

  const hasCodes = lookup.canReveal || lookup.canDisable;
  const codes = lookup.codes.map((c) => c.code);
  const post = (field: string, success: string | null) =>
    action.run({ method: 'lookup_secret', [field]: true }, success, () => setConfirming(null));

  return (
    <ProfileSection
      id="profile-recovery-codes"
      title="Recovery codes"
      description="Single-use codes that sign you in when your authenticator app or security key is not at hand."
      message={action.message}
    >
      {lookup.remaining && lookup.codes.length === 0 && <Text as="p" className={s.muted}>{lookup.remaining}</Text>}
      {lookup.codes.length > 0 && (
        <>
          {lookup.mustConfirm && (
            <MessageBar intent="warning">
              <MessageBarBody>
                Save these codes somewhere safe: they are shown only once. Each works one time.
              </MessageBarBody>
            </MessageBar>
          )}
          <ul className={s.codes} aria-label="Recovery codes" data-testid="recovery-codes">
            {lookup.codes.map((c) => (
              <li key={c.code} className={c.used ? s.used : undefined}>
                {c.code}
                {c.used && ' (used)'}
              </li>
            ))}
          </ul>
          <div className={s.actions}>
            <Button icon={<Copy16Regular />} onClick={() => void copyToClipboard(codes.join('\n'), 'Recovery codes copied to clipboard')}>
              Copy
            </Button>
            <Button icon={<ArrowDownload16Regular />} onClick={() => download(codes)}>
              Download
            </Button>
          </div>
        </>
      )}
      <div className={s.actions}>
        {lookup.mustConfirm && (
          <Button
            appearance="primary"
            disabledFocusable={action.pending}
            icon={action.pending ? <Spinner size="tiny" /> : undefined}
            onClick={() => post('lookup_secret_confirm', 'Your recovery codes are saved.')}
          >
            I have saved these codes
          </Button>
        )}
        {/* reveal shows the stored codes where the server can (here it offers a new set, as regenerate does) */}
        {lookup.canReveal && !lookup.canRegenerate && lookup.codes.length === 0 && (
          <Button disabledFocusable={action.pending} onClick={() => post('lookup_secret_reveal', null)}>
            Show codes
          </Button>
        )}
        {lookup.canRegenerate && !lookup.mustConfirm && (
          <Button
            appearance={hasCodes ? 'secondary' : 'primary'}
            disabledFocusable={action.pending}
            onClick={() => (hasCodes ? setConfirming('regenerate') : post('lookup_secret_regenerate', null))}
          >
            {hasCodes ? 'Regenerate codes' : 'Generate recovery codes'}
          </Button>
        )}
        {lookup.canDisable && !lookup.mustConfirm && (
          <Button disabledFocusable={action.pending} onClick={() => setConfirming('disable')}>
            Remove codes
          </Button>
        )}
      </div>
      <ConfirmDialog
        open={confirming === 'regenerate'}
        title="Regenerate recovery codes?"
        description="Your current recovery codes stop working once you save the new ones."
        confirmLabel="Regenerate"
        busy={action.pending}
        onCancel={() => setConfirming(null)}
        onConfirm={() => post('lookup_secret_regenerate', null)}
      />
      <ConfirmDialog
        open={confirming === 'disable'}
        title="Remove recovery codes?"
        description="Your recovery codes stop working. You can generate new ones at any time."
        confirmLabel="Remove"
        danger
        busy={action.pending}
        onCancel={() => setConfirming(null)}
        onConfirm={() => post('lookup_secret_disable', 'Your recovery codes were removed.')}
      />
    </ProfileSection>
  );
}
