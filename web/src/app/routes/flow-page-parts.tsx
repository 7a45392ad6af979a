import { Button, MessageBar, MessageBarActions, MessageBarBody, MessageBarTitle, Spinner } from '@fluentui/react-components';
import { errorMessage } from '../../lib/api-client';

/** While a flow loads. */
export function FlowLoading() {
  return <Spinner size="small" label="Loading…" />;
}

/** An error the catalogue does not cover (the server down, a lockout's 429): its message and a new flow. */
export function FlowFailed({ error, onRetry }: { error: unknown; onRetry(): void }) {
  return (
    <MessageBar intent="error" role="alert" layout="multiline">
      <MessageBarBody>{errorMessage(error)}</MessageBarBody>
      <MessageBarActions>
        <Button onClick={onRetry}>Try again</Button>
      </MessageBarActions>
    </MessageBar>
  );
}

/**
 * A hosted sign-in that failed (/login?oidc_error=…): what the provider or the console said, naming the provider,
 * and whether the local sign-in still works.
 */
export function HostedSignInError({ provider, message, local }: { provider?: string; message: string; local: 'all' | 'admins' | 'none' }) {
  const name = provider ?? 'your identity provider';
  const rest =
    local === 'none'
      ? 'Try again later, or ask an administrator.'
      : local === 'admins'
        ? 'Administrators can still sign in with a local account below.'
        : 'You can still sign in with a local account below.';
  return (
    <MessageBar intent="error" role="alert" layout="multiline">
      <MessageBarBody>
        <MessageBarTitle>Signing in with {name} failed.</MessageBarTitle> {message} {rest}
      </MessageBarBody>
    </MessageBar>
  );
}
