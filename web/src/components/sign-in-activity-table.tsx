import {
  Badge, makeStyles, Spinner, Table, TableBody, TableCell, TableHeader, TableHeaderCell, TableRow, Text, tokens,
} from '@fluentui/react-components';
import { errorMessage } from '../lib/api-client';
import { formatAge, formatDateTime } from '../lib/format';
import { deviceName } from '../lib/user-agent';

/** One sign-in event (a row of auth_events) as the table shows it. */
export interface SignInActivityRow {
  id: string;
  type: string;
  method?: string | null;
  success: boolean;
  ip?: string | null;
  user_agent?: string | null;
  created_at: string;
}

const useStyles = makeStyles({
  wrap: { maxHeight: '360px', overflowY: 'auto' },
  muted: { margin: 0, color: tokens.colorNeutralForeground2 },
});

const METHODS: Record<string, string> = {
  password: 'Password',
  totp: 'Authenticator app',
  lookup_secret: 'Recovery code',
  webauthn: 'Security key',
  passkey: 'Passkey',
  oidc: 'Single sign-on',
  link_recovery: 'Recovery link',
  code_recovery: 'Recovery code by email',
  code: 'Email code',
};

/** The events the server records (auth_events.type), as a person reads them. */
const EVENTS: Record<string, string> = {
  login: 'Signed in',
  login_failed: 'Sign-in failed',
  oidc_login: 'Signed in with single sign-on',
  logout: 'Signed out',
  locked: 'Sign-in locked',
  session_revoked: 'Session revoked',
  registration: 'Account created',
  password_changed: 'Password changed',
  profile_updated: 'Profile updated',
  email_change_requested: 'Email change requested',
  email_changed: 'Email changed',
  recovery_requested: 'Account recovery requested',
  recovered: 'Account recovered',
  verification_requested: 'Email verification requested',
  verified: 'Email verified',
  totp_enrolled: 'Authenticator app added',
  totp_removed: 'Authenticator app removed',
  lookup_regenerated: 'Recovery codes created',
  lookup_disabled: 'Recovery codes removed',
  webauthn_added: 'Security key or passkey added',
  webauthn_removed: 'Security key or passkey removed',
  factors_reset: 'Second factor reset by an administrator',
  not_me: "Reported: This wasn't me",
  organization_switched: 'Organization switched',
};

/** An event type as words: a known one by its label, else `some_event` → "Some event". */
export function eventLabel(type: string): string {
  if (EVENTS[type]) return EVENTS[type];
  const words = type.replace(/[._-]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : type;
}

export function methodLabel(method: string | null | undefined): string {
  return method ? (METHODS[method] ?? eventLabel(method)) : '';
}

/**
 * Sign-in activity: time, event, method, IP, device and result, newest first. Shared by Your Profile (your own) and
 * Edit User (an admin's view of one person).
 */
export function SignInActivityTable(props: { rows: SignInActivityRow[] | undefined; loading: boolean; error: unknown }) {
  const s = useStyles();
  if (props.error) {
    return (
      <Text as="p" role="alert">
        {errorMessage(props.error)}
      </Text>
    );
  }
  if (props.loading) return <Spinner size="small" label="Loading sign-in activity" />;
  if (!props.rows?.length) {
    return (
      <Text as="p" className={s.muted}>
        No sign-in activity yet.
      </Text>
    );
  }
  return (
    // a scrolling region is a tab stop, so keyboard users can scroll it too
    <div className={s.wrap} tabIndex={0} role="region" aria-label="Sign-in activity, scrollable">
      <Table size="small" aria-label="Sign-in activity">
        <TableHeader>
          <TableRow>
            <TableHeaderCell>Time</TableHeaderCell>
            <TableHeaderCell>Event</TableHeaderCell>
            <TableHeaderCell>Method</TableHeaderCell>
            <TableHeaderCell>IP address</TableHeaderCell>
            <TableHeaderCell>Device</TableHeaderCell>
            <TableHeaderCell>Result</TableHeaderCell>
          </TableRow>
        </TableHeader>
        <TableBody>
          {props.rows.map((e) => (
            <TableRow key={e.id}>
              <TableCell title={formatDateTime(e.created_at)}>{formatAge(e.created_at)}</TableCell>
              <TableCell>{eventLabel(e.type)}</TableCell>
              <TableCell>{methodLabel(e.method)}</TableCell>
              <TableCell>{e.ip ?? ''}</TableCell>
              <TableCell>{deviceName(e.user_agent)}</TableCell>
              <TableCell>
                <Badge appearance="tint" color={e.success ? 'success' : 'danger'}>
                  {e.success ? 'Succeeded' : 'Failed'}
                </Badge>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}
