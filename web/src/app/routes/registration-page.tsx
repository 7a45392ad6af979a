import { useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';
import { MessageBar, MessageBarBody } from '@fluentui/react-components';
import { FlowForm } from '../../features/auth/flow-form';
import { browserTarget } from '../../features/auth/flow-errors';
import { continueTarget, useFlow, useSessionStarted } from '../../features/auth/flows';
import { runWebAuthnTrigger } from '../../features/auth/flow-webauthn';
import { safeReturnTo } from '../../lib/return-to';
import { AuthLayout } from './auth-layout';
import { FlowFailed, FlowLoading } from './flow-page-parts';

export const INVITE_NEEDED = 'This page needs an invite link. Ask an administrator of the console to invite you.';

/**
 * /registration?invite=…: the registration flow, invite-only (name and email come from the invite; a password, or a
 * passkey when offered); the new user is signed in and sent on.
 */
export function RegistrationPage() {
  const [, navigate] = useLocation();
  const query = new URLSearchParams(useSearch());
  const invite = query.get('invite') ?? undefined;
  const hasFlow = !!query.get('flow');
  const params = useMemo(() => ({ invite }), [invite]);
  const { flow, error, busy, submit, restart } = useFlow('registration', params, { enabled: !!invite || hasFlow });
  const started = useSessionStarted();

  const onSubmit = async (body: Record<string, unknown>) => {
    const done = await submit(body);
    if (!done) return;
    started();
    const next = browserTarget(continueTarget(done) ?? '/', window.location.origin);
    if (next.hard) window.location.assign(next.to);
    else navigate(safeReturnTo(next.to), { replace: true });
  };

  if (!invite && !hasFlow) {
    return (
      <AuthLayout title="Create your account">
        <MessageBar intent="warning">
          <MessageBarBody>{INVITE_NEEDED}</MessageBarBody>
        </MessageBar>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title="Create your account" subtitle="You were invited to the console. Choose a password to finish.">
      {error ? (
        <FlowFailed error={error} onRetry={restart} />
      ) : flow ? (
        <FlowForm flow={flow} onSubmit={onSubmit} busy={busy} confirmPassword onTrigger={runWebAuthnTrigger} />
      ) : (
        <FlowLoading />
      )}
    </AuthLayout>
  );
}
