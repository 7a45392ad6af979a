import { ReturnTo } from '@contracts/auth';

/** A `return_to` the app may follow: a same-origin path that is not a sign-in page; anything else goes home. */
export function safeReturnTo(value: string | null | undefined, fallback = '/'): string {
  if (!value || !ReturnTo.safeParse(value).success) return fallback;
  if (/^\/(login|registration|auth-state-checker)(?=$|[/?#])/.test(value)) return fallback;
  return value;
}
