import type { SelfServiceFlow } from '@contracts/identity';
import { SettingsError, useSubmitSettings } from '../api';
import { useTimedMessage } from './use-timed-message';

type Success = string | null | ((flow: SelfServiceFlow) => string | null);

/**
 * One section's posts to the settings flow with its own message (cleared after 10 s) and busy state. A refusal
 * shows the flow's messages; a redirect (fresh sign-in needed) shows nothing, the browser is already leaving.
 */
export function useSettingsAction() {
  const submit = useSubmitSettings();
  const [message, setMessage] = useTimedMessage();
  const run = (body: Record<string, unknown>, success: Success, onDone?: (flow: SelfServiceFlow) => void) => {
    setMessage(null);
    submit.mutate(body, {
      onSuccess: (flow) => {
        const text = typeof success === 'function' ? success(flow) : success;
        if (text) setMessage({ intent: 'success', text });
        onDone?.(flow);
      },
      onError: (err) => {
        if (err instanceof SettingsError && err.messages.length === 0) return;
        setMessage({ intent: 'error', text: err.message });
      },
    });
  };
  return { run, pending: submit.isPending, message, setMessage };
}
