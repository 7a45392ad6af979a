import { useEffect } from 'react';
import { Toast, ToastTitle, Toaster, useId, useToastController, type ToastIntent } from '@fluentui/react-components';
import { TOAST_TIMEOUT_MS } from './toast';

type Show = (message: string, intent: ToastIntent) => void;

/** The Fluent toaster behind toast.tsx's ToastHost, loaded with the first toast. */
export function ToastRenderer({ register }: { register: (show: Show) => () => void }) {
  const toasterId = useId('toaster');
  const { dispatchToast } = useToastController(toasterId);
  useEffect(
    () =>
      register((message, intent) =>
        dispatchToast(
          <Toast>
            <ToastTitle>{message}</ToastTitle>
          </Toast>,
          { intent, timeout: TOAST_TIMEOUT_MS, position: 'top-end' },
        ),
      ),
    [dispatchToast, register],
  );
  return <Toaster toasterId={toasterId} position="top-end" timeout={TOAST_TIMEOUT_MS} pauseOnHover />;
}
