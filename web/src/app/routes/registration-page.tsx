import { useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';
import { MessageBar, MessageBarBody } from '@fluentui/react-components';
import type { UiNode } from '@contracts/identity';
import { FlowForm } from '../../features/auth/flow-form';
import { browserTarget } from '../../features/auth/flow-errors';
import { continueTarget, useFlow, useSessionStarted } from '../../features/auth/flows';
import { runWebAuthnTrigger } from '../../features/auth/flow-webauthn';
import { webAuthnAvailable } from '../../features/auth/webauthn';
import { safeReturnTo } from '../../lib/return-to';
import { AuthLayout } from './auth-layout';
import { FlowFailed, FlowLoading } from './flow-page-parts';

export const INVITE_NEEDED = 'This page needs an invite link. Ask an administrator of the console to invite you.';

/** The names typed in the password section also go with a passkey sign-up (its own section has no fields). */
const TRAIT_FIELDS = ['traits.name.first', 'traits.name.last'];

async function passkeySignUp(node: UiNode, values: Record<string, unknown>): Promise<Record<string, unknown> | null> {
  const answer = await runWebAuthnTrigger(node);
  if (!answer) return null;
  const traits = Object.fromEntries(TRAIT_FIELDS.filter((f) => typeof values[f] === 'string').map((f) => [f, values[f]]));
  return { ...traits, ...answer };
}

const isPasskeyTrigger = (n: UiNode) => n.attributes.node_type === 'input' && n.attributes.name === 'passkey_register_trigger';
/** A browser without WebAuthn gets no passkey button (the password stays). */
const hidePasskeyWithoutWebAuthn = (n: UiNode) => n.group === 'passkey' && !webAuthnAvailable();

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
    <AuthLayout
      title="Create your account"
      subtitle={
        flow?.ui.nodes.some(isPasskeyTrigger) && webAuthnAvailable()
          ? 'You were invited to the console. Choose a password, or sign up with a passkey, to finish.'
          : 'You were invited to the console. Choose a password to finish.'
      }
    >
      {error ? (
        <FlowFailed error={error} onRetry={restart} />
      ) : flow ? (
        <FlowForm
          flow={flow}
          onSubmit={onSubmit}
          busy={busy}
          confirmPassword
          onTrigger={passkeySignUp}
          hideNode={hidePasskeyWithoutWebAuthn}
        />
      ) : (
        <FlowLoading />
      )}
    </AuthLayout>
  );
}
