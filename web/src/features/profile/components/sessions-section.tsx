import { useState } from 'react';
import {
  Badge, Button, makeStyles, Spinner, Table, TableBody, TableCell, TableHeader, TableHeaderCell, TableRow, Text, tokens,
} from '@fluentui/react-components';
import type { KratosSession } from '@contracts/identity';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';
import { errorMessage } from '../../../lib/api-client';
import { formatAge, formatDateTime } from '../../../lib/format';
import { deviceName } from '../../../lib/user-agent';
import { useCurrentSession, useRevokeOtherSessions, useRevokeSession, useSessions } from '../api';
import { ProfileSection } from './profile-section';
import { useTimedMessage } from './use-timed-message';

const useStyles = makeStyles({
  device: { display: 'flex', alignItems: 'center', gap: tokens.spacingHorizontalS, flexWrap: 'wrap' },
  actions: { display: 'flex', gap: tokens.spacingHorizontalS },
  muted: { margin: 0, color: tokens.colorNeutralForeground2 },
});

const METHOD_LABELS: Record<string, string> = {
  password: 'password',
  totp: 'authenticator app',
  lookup_secret: 'recovery code',
  webauthn: 'security key',
  passkey: 'passkey',
  oidc: 'single sign-on',
  link_recovery: 'recovery link',
  code_recovery: 'recovery code by email',
  code: 'email code',
};

/** How a session was signed in: "password + authenticator app". */
export function methodsLabel(session: KratosSession): string {
  const names = [...new Set(session.authentication_methods.map((m) => METHOD_LABELS[m.method] ?? m.method))];
  return names.join(' + ');
}

/** This session first, then the others by last activity. */
export function orderSessions(current: KratosSession | undefined, others: KratosSession[] | undefined): KratosSession[] {
  const rest = (others ?? []).filter((s) => s.id !== current?.id && s.active !== false);
  const last = (s: KratosSession) => Date.parse(s.last_seen_at ?? s.authenticated_at) || 0;
  rest.sort((a, b) => last(b) - last(a));
  return current ? [current, ...rest] : rest;
}

/**
 * Sessions: where you are signed in (device, IP, how, last active), live: refreshed every 15 s and when the tab
 * regains focus. Revoke one, or sign out everywhere else; a revoked browser lands on /login.
 */
export function SessionsSection({ refreshMs }: { refreshMs?: number }) {
  const s = useStyles();
  const current = useCurrentSession();
  const others = useSessions(refreshMs);
  const revoke = useRevokeSession();
  const revokeOthers = useRevokeOtherSessions();
  const [message, setMessage] = useTimedMessage();
  const [confirming, setConfirming] = useState(false);
  const sessions = orderSessions(current.data, others.data);
  const otherCount = sessions.length - (current.data ? 1 : 0);
  const error = current.error ?? others.error;

  return (
    <ProfileSection
      id="profile-sessions"
      title="Sessions"
      description="Where you are signed in. Revoke a session you do not recognise; it is signed out at once."
      message={message}
    >
      {error && !current.data ? (
        <Text as="p" role="alert">
          {errorMessage(error)}
        </Text>
      ) : current.isLoading || others.isLoading ? (
        <Spinner size="small" label="Loading sessions" />
      ) : (
        <Table size="small" aria-label="Sessions">
          <TableHeader>
            <TableRow>
              <TableHeaderCell>Device</TableHeaderCell>
              <TableHeaderCell>IP address</TableHeaderCell>
              <TableHeaderCell>Signed in with</TableHeaderCell>
              <TableHeaderCell>Last active</TableHeaderCell>
              <TableHeaderCell>
                Actions
              </TableHeaderCell>
            </TableRow>
          </TableHeader>
          <TableBody>
            {sessions.map((session) => {
              const device = session.devices?.[0];
              const mine = session.id === current.data?.id;
              const seen = session.last_seen_at ?? session.authenticated_at;
              return (
                <TableRow key={session.id} data-session-id={session.id}>
                  <TableCell>
                    <span className={s.device}>
                      {deviceName(device?.user_agent)}
                      {mine && (
                        <Badge appearance="tint" color="brand">
                          This device
                        </Badge>
                      )}
                    </span>
                  </TableCell>
                  <TableCell>{device?.ip_address ?? ''}</TableCell>
                  <TableCell>{methodsLabel(session)}</TableCell>
                  <TableCell title={formatDateTime(seen)}>{mine ? 'Now' : formatAge(seen)}</TableCell>
                  <TableCell>
                    {!mine && (
                      <Button
                        size="small"
                        aria-label={`Revoke ${deviceName(device?.user_agent)} session`}
                        disabledFocusable={revoke.isPending && revoke.variables === session.id}
                        onClick={() =>
                          revoke.mutate(session.id, {
                            onSuccess: () => setMessage({ intent: 'success', text: 'The session was signed out.' }),
                            onError: (err) => setMessage({ intent: 'error', text: errorMessage(err) }),
                          })
                        }
                      >
                        Revoke
                      </Button>
                    )}
                  </TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      )}
      <div className={s.actions}>
        <Button disabledFocusable={otherCount === 0} onClick={() => setConfirming(true)}>
          Sign out everywhere else
        </Button>
      </div>
      <ConfirmDialog
        open={confirming}
        title="Sign out everywhere else?"
        description="Every other browser and device signed in as you is signed out. This one stays signed in."
        confirmLabel="Sign out"
        danger
        busy={revokeOthers.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          revokeOthers.mutate(undefined, {
            onSuccess: () => {
              setConfirming(false);
              setMessage({ intent: 'success', text: 'Your other sessions were signed out.' });
            },
            onError: (err) => {
              setConfirming(false);
              setMessage({ intent: 'error', text: errorMessage(err) });
            },
          })
        }
      />
    </ProfileSection>
  );
}
