import type { Config } from '../../../config.js';
import { KratosError } from './errors.js';

/**
 * Checks a `return_to`: a path on this site (one leading `/`, no backslash or control character) or an absolute URL
 * on PUBLIC_URL's origin (kept as its path). Anything else: 400 self_service_flow_return_to_forbidden.
 */
export function checkReturnTo(config: Config, value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || value.length > 2048 || /[\\\u0000-\u001f\u007f]/.test(value)) throw forbidden();
  if (/^\/(?![/\\])/.test(value)) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw forbidden();
  }
  if (url.origin !== new URL(config.publicUrl).origin) throw forbidden();
  return `${url.pathname}${url.search}${url.hash}`;
}

function forbidden() {
  return new KratosError(400, 'self_service_flow_return_to_forbidden', 'Requested return_to URL is not allowed.', {
    reason: 'The return_to address is not allowed.',
  });
}
