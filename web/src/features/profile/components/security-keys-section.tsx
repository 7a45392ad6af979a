import { useState } from 'react';
import {
  Button, Field, Input, makeStyles, Spinner, Table, TableBody, TableCell, TableHeader, TableHeaderCell, TableRow, Text,
  tokens,
} from '@fluentui/react-components';
import type { SelfServiceFlow } from '@contracts/identity';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { formatAge, formatDateTime } from '../../../lib/format';
import { groupNodes, registeredKeys, registrationOptions, type RegisteredKey } from '../flow-nodes';
import { ProfileSection } from './profile-section';
import { useSettingsAction } from './use-settings-action';

const useStyles = makeStyles({
  add: { display: 'flex', alignItems: 'flex-end', gap: tokens.spacingHorizontalS, flexWrap: 'wrap' },
  name: { minWidth: '220px' },
  muted: { margin: 0, color: tokens.colorNeutralForeground2 },
});

/** Runs the browser's WebAuthn ceremony for the flow's options; the credential goes back as JSON. */
async function createCredential(options: unknown): Promise<string> {
  const { startRegistration } = await import('@simplewebauthn/browser');
  // the server built these with @simplewebauthn/server: already the JSON form the browser helper takes
  const credential = await startRegistration({ optionsJSON: options as Parameters<typeof startRegistration>[0]['optionsJSON'] });
  return JSON.stringify(credential);
}

function when(value: string | null): string {
  return value ? formatDateTime(value) : '';
}

/**
 * Security keys and passkeys (WebAuthn): the ones registered (name, added, last used, remove) and adding one. A passkey
 * signs in without a password; a security key is a second step after it.
 */
export function SecurityKeysSection({ flow }: { flow: SelfServiceFlow }) {
  const s = useStyles();
  const action = useSettingsAction();
  const [name, setName] = useState('');
  const [removing, setRemoving] = useState<RegisteredKey | null>(null);
  const webauthn = groupNodes(flow, 'webauthn').length > 0;
  const passkey = groupNodes(flow, 'passkey').length > 0;
  if (!webauthn && !passkey) return null;
  const keys = registeredKeys(flow);

  const add = async (kind: 'webauthn' | 'passkey') => {
    const options = registrationOptions(flow, kind);
    if (!options) {
      action.setMessage({ intent: 'error', text: 'This browser cannot register a key right now: reload the page.' });
      return;
    }
    let credential: string;
    try {
      credential = await createCredential(options);
    } catch (err) {
      // the user cancelled the browser's dialog, or no authenticator answered
      action.setMessage({ intent: 'error', text: err instanceof Error && err.message ? err.message : 'The key was not registered.' });
      return;
    }
    const body = kind === 'passkey'
      ? { method: 'passkey', passkey_settings_register: credential, passkey_register_displayname: name.trim() || 'Passkey' }
      : { method: 'webauthn', webauthn_register: credential, webauthn_register_displayname: name.trim() || 'Security key' };
    action.run(body, kind === 'passkey' ? 'Your passkey was added.' : 'Your security key was added.', () => setName(''));
  };

  return (
    <ProfileSection
      id="profile-keys"
      title="Security keys and passkeys"
      description="A passkey signs you in without a password; a security key confirms it is you after your password."
      message={action.message}
    >
      {keys.length === 0 ? (
        <Text as="p" className={s.muted}>
          No security keys or passkeys yet.
        </Text>
      ) : (
        <Table size="small" aria-label="Security keys and passkeys">
          <TableHeader>
            <TableRow>
              <TableHeaderCell>Name</TableHeaderCell>
              <TableHeaderCell>Type</TableHeaderCell>
              <TableHeaderCell>Added</TableHeaderCell>
              <TableHeaderCell>Last used</TableHeaderCell>
              <TableHeaderCell>
                Actions
              </TableHeaderCell>
            </TableRow>
          </TableHeader>
          <TableBody>
            {keys.map((k) => (
              <TableRow key={`${k.kind}:${k.id}`}>
                <TableCell>{k.name}</TableCell>
                <TableCell>{k.kind === 'passkey' ? 'Passkey' : 'Security key'}</TableCell>
                <TableCell title={when(k.addedAt)}>{k.addedAt ? formatAge(k.addedAt) : ''}</TableCell>
                <TableCell title={when(k.lastUsedAt)}>{k.lastUsedAt ? formatAge(k.lastUsedAt) : 'Never'}</TableCell>
                <TableCell>
                  <Button size="small" onClick={() => setRemoving(k)} aria-label={`Remove ${k.name}`}>
                    Remove
                  </Button>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      <div className={s.add}>
        <Field label="Name of the new key or passkey" className={s.name}>
          <Input value={name} onChange={(_, d) => setName(d.value)} maxLength={64} placeholder="e.g. YubiKey, work laptop" />
        </Field>
        {webauthn && (
          <>
            <Button
              disabledFocusable={action.pending}
              icon={action.pending ? <Spinner size="tiny" /> : undefined}
              onClick={() => void add('webauthn')}
            >
              Add security key
            </Button>
          </>
        )}
        {passkey && (
          <Button appearance="primary" disabledFocusable={action.pending} onClick={() => void add('passkey')}>
            Add passkey
          </Button>
        )}
      </div>
      <ConfirmDialog
        open={removing !== null}
        title={`Remove ${removing?.name ?? 'key'}?`}
        description="It will no longer sign you in."
        confirmLabel="Remove"
        danger
        busy={action.pending}
        onCancel={() => setRemoving(null)}
        onConfirm={() =>
          removing &&
          action.run(
            { method: removing.kind, [`${removing.kind}_remove`]: removing.id },
            `${removing.name} was removed.`,
            () => setRemoving(null),
          )
        }
      />
    </ProfileSection>
  );
}
