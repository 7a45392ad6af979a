import { lazy, Suspense, useEffect, useState } from 'react';
import type { ToastIntent } from '@fluentui/react-components';

/** How long a toast stays (spec 001, section 9: toasts last 5 s). */
export const TOAST_TIMEOUT_MS = 5_000;

type Show = (message: string, intent: ToastIntent) => void;

let show: Show | null = null;
// the mounted host, waiting for its first toast to load the toaster
let wake: (() => void) | null = null;
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
  else {
    pending.push([message, intent]);
    wake?.();
  }
}

// The toaster (toaster.tsx) loads with the first toast, not with the start-up bundle.
const ToastRenderer = lazy(() => import('./toaster').then((m) => ({ default: m.ToastRenderer })));

function register(next: Show): () => void {
  show = next;
  pending.splice(0).forEach(([m, i]) => next(m, i));
  return () => {
    if (show === next) show = null;
  };
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
  const [needed, setNeeded] = useState(false);
  useEffect(() => {
    wake = () => setNeeded(true);
    if (pending.length) setNeeded(true);
    return () => {
      wake = null;
    };
  }, []);
  if (!needed) return null;
  return (
    <Suspense fallback={null}>
      <ToastRenderer register={register} />
    </Suspense>
  );
}
