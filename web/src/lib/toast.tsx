import { useEffect } from 'react';
import { Toast, ToastTitle, Toaster, useId, useToastController, type ToastIntent } from '@fluentui/react-components';

/** How long a toast stays (spec 001, section 9: toasts last 5 s). */
export const TOAST_TIMEOUT_MS = 5_000;

type Show = (message: string, intent: ToastIntent) => void;

let show: Show | null = null;
// toasts raised before the host mounted (e.g. by a request fired during start-up)
const pending: Array<[string, ToastIntent]> = [];
// the same message raised many times at once (ten requests timing out together) shows once
const recent = new Map<string, number>();
const DEDUPE_MS = 1_500;

function raise(message: string, intent: ToastIntent) {
  const key = `${intent}:${message}`;
  const now = Date.now();
  if ((recent.get(key) ?? 0) > now - DEDUPE_MS) return;
  recent.set(key, now);
  if (show) show(message, intent);
  else pending.push([message, intent]);
}

/** The one way to tell the user something happened: top right, 5 seconds. */
export const toast = {
  success: (message: string) => raise(message, 'success'),
  error: (message: string) => raise(message, 'error'),
  warning: (message: string) => raise(message, 'warning'),
  info: (message: string) => raise(message, 'info'),
};

/** Mount once near the root; `toast.*` calls render here. */
export function ToastHost() {
  const toasterId = useId('toaster');
  const { dispatchToast } = useToastController(toasterId);
  useEffect(() => {
    show = (message, intent) =>
      dispatchToast(
        <Toast>
          <ToastTitle>{message}</ToastTitle>
        </Toast>,
        { intent, timeout: TOAST_TIMEOUT_MS, position: 'top-end' },
      );
    pending.splice(0).forEach(([m, i]) => show!(m, i));
    return () => {
      show = null;
    };
  }, [dispatchToast]);
  return <Toaster toasterId={toasterId} position="top-end" timeout={TOAST_TIMEOUT_MS} pauseOnHover />;
}
