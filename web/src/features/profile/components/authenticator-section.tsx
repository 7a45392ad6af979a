import { useState } from 'react';
import { Button, Field, Input, makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { Copy16Regular } from '@fluentui/react-icons';
import type { SelfServiceFlow } from '@contracts/identity';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { copyToClipboard } from '../../../lib/clipboard';
import { totpState } from '../flow-nodes';
import { ProfileSection } from './profile-section';
import { useSettingsAction } from './use-settings-action';

const useStyles = makeStyles({
  enrol: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  qr: {
    width: '180px',
    height: '180px',
    backgroundColor: '#fff',
    padding: tokens.spacingHorizontalS,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusMedium,
  },
  secret: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, flexWrap: 'wrap' },
  code: {
    fontFamily: tokens.fontFamilyMonospace,
    fontSize: tokens.fontSizeBase300,
    letterSpacing: '0.08em',
    wordBreak: 'break-all',
    padding: `${tokens.spacingVerticalXXS} ${tokens.spacingHorizontalS}`,
    backgroundColor: tokens.colorNeutralBackground3,
    borderRadius: tokens.borderRadiusMedium,
  },
  codeField: { maxWidth: '200px' },
  actions: { display: 'flex', gap: tokens.spacingHorizontalS },
  muted: { margin: 0, color: tokens.colorNeutralForeground2 },
});

/**
 * Authenticator app (TOTP): scan the QR code or type the key, confirm with a code; once linked, sign-ins ask for a
 * code after the password. Removing it needs a confirmation (and, like enrolling, a fresh sign-in).
 */
export function AuthenticatorSection({ flow }: { flow: SelfServiceFlow }) {
  const s = useStyles();
  const totp = totpState(flow);
  const action = useSettingsAction();
  const [enrolling, setEnrolling] = useState(false);
  const [code, setCode] = useState('');
  const [removing, setRemoving] = useState(false);
  if (!totp.available) return null;

  const confirm = () =>
    action.run({ method: 'totp', totp_code: code.trim() }, 'Your authenticator app is set up.', () => {
      setEnrolling(false);
      setCode('');
    });

  return (
    <ProfileSection
      id="profile-totp"
      title="Authenticator app"
      description={
        totp.linked
          ? 'On: after your password, signing in asks for a 6-digit code from your authenticator app.'
          : 'Off: add a second step to signing in with a 6-digit code from an app such as Google Authenticator or 1Password.'
      }
      message={action.message}
    >
      {totp.linked ? (
        <div className={s.actions}>
          <Button onClick={() => setRemoving(true)}>Remove authenticator app</Button>
        </div>
      ) : !enrolling ? (
        <div className={s.actions}>
          <Button appearance="primary" onClick={() => setEnrolling(true)}>
            Set up authenticator app
          </Button>
        </div>
      ) : (
        <form
          className={s.enrol}
          noValidate
          aria-label="Set up authenticator app"
          onSubmit={(e) => {
            e.preventDefault();
            confirm();
          }}
        >
          <Text as="p" className={s.muted}>
            1. Scan this QR code with your authenticator app, or enter the key by hand.
          </Text>
          {totp.qr && <img className={s.qr} src={totp.qr} alt="QR code for your authenticator app" />}
          {totp.secret && (
            <div className={s.secret}>
              <Text>Key:</Text>
              <code className={s.code} data-testid="totp-secret">
                {totp.secret}
              </code>
              <Button
                size="small"
                appearance="subtle"
                icon={<Copy16Regular />}
                onClick={() => void copyToClipboard(totp.secret, 'Key copied to clipboard')}
              >
                Copy key
              </Button>
            </div>
          )}
          <Text as="p" className={s.muted}>
            2. Enter the 6-digit code the app shows.
          </Text>
          <Field label="Verification code" required className={s.codeField}>
            <Input
              value={code}
              onChange={(_, d) => setCode(d.value)}
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={8}
              name="totp_code"
            />
          </Field>
          <div className={s.actions}>
            <Button
              appearance="primary"
              type="submit"
              disabledFocusable={action.pending || code.trim().length < 6}
              icon={action.pending ? <Spinner size="tiny" /> : undefined}
            >
              Confirm
            </Button>
            <Button onClick={() => setEnrolling(false)}>Cancel</Button>
          </div>
        </form>
      )}
      <ConfirmDialog
        open={removing}
        title="Remove authenticator app?"
        description="Signing in will no longer ask for a code from your app (security keys and recovery codes stay)."
        confirmLabel="Remove"
        danger
        busy={action.pending}
        onCancel={() => setRemoving(false)}
        onConfirm={() =>
          action.run({ method: 'totp', totp_unlink: true }, 'The authenticator app was removed.', () => setRemoving(false))
        }
      />
    </ProfileSection>
  );
}
