import { ConnectionTestError, type HydratedConnection } from './types.js';

/**
 * Helpers every tester shares: reading the connection's fields, turning a driver's error into a message that says
 * what failed (refused, host not found, TLS, timeout, auth), and giving up on a driver that ignores AbortSignal.
 */

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'CERT_UNTRUSTED', 'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH', 'CERT_SIGNATURE_FAILURE',
]);

/** A string field of `properties`, trimmed; undefined when absent or empty. */
export function prop(c: HydratedConnection, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = c.properties?.[k];
    if ((typeof v === 'string' && v.trim()) || typeof v === 'number') return String(v).trim();
  }
  return undefined;
}

/** The connection's url, required. */
export function requireUrl(c: HydratedConnection, example: string): string {
  const url = c.url?.trim();
  if (!url) throw new ConnectionTestError(`url is required (e.g. ${example})`);
  return url;
}

/** Parses a URL, refusing other schemes than `schemes`; the message never repeats the url's password. */
export function parseUrl(raw: string, schemes: string[]): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConnectionTestError(`url is not a valid URL: ${maskUrl(raw)}`);
  }
  if (!schemes.includes(u.protocol.replace(/:$/, ''))) {
    throw new ConnectionTestError(`url must start with ${schemes.map((s) => `${s}://`).join(' or ')} (got ${u.protocol}//)`);
  }
  return u;
}

/** The url with any password shown as `***` (for messages and payloads). */
export function maskUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return raw.replace(/(\/\/[^:/@\s]*:)[^@/\s]*@/, '$1***@');
  }
}

/** Node's error code of `err`, looking into `cause` and an AggregateError's first error (happy eyeballs). */
export function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const o = e as { code?: unknown; errors?: unknown[]; cause?: unknown };
    if (typeof o.code === 'string' && o.code) return o.code;
    e = Array.isArray(o.errors) && o.errors.length ? o.errors[0] : o.cause;
  }
  return undefined;
}

/** The message of `err`, or of its first inner error when it has none (AggregateError). */
export function errorMessage(err: unknown): string {
  const e = err as { message?: unknown; errors?: unknown[] };
  if (typeof e?.message === 'string' && e.message) return e.message;
  if (Array.isArray(e?.errors) && e.errors.length) return errorMessage(e.errors[0]);
  return String(err);
}

/**
 * What failed at the network or TLS level, as the user should read it, for the usual Node error codes; undefined for
 * anything else (the tester then says what its protocol said).
 */
export function networkFailure(err: unknown, target: string): ConnectionTestError | undefined {
  const code = errorCode(err);
  if (!code) return undefined;
  const host = target.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  switch (code) {
    case 'ECONNREFUSED':
      return new ConnectionTestError(`connection refused: nothing accepts connections at ${target}`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new ConnectionTestError(`host not found: ${host} does not resolve (DNS)`);
    case 'ETIMEDOUT':
    case 'ESOCKETTIMEDOUT':
      return new ConnectionTestError(`timed out connecting to ${target}`);
    case 'ECONNRESET':
    case 'EPIPE':
      return new ConnectionTestError(`connection reset by ${target}`);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new ConnectionTestError(`host unreachable: ${target}`);
    default:
      if (TLS_CODES.has(code)) {
        return new ConnectionTestError(`TLS: the certificate of ${target} is not trusted (${code}); add its CA or allow insecure TLS`);
      }
      if (code.startsWith('ERR_SSL') || code === 'EPROTO' || code.startsWith('ERR_TLS')) {
        return new ConnectionTestError(`TLS: handshake with ${target} failed (${errorMessage(err)})`);
      }
      return undefined;
  }
}

/** `err` as a ConnectionTestError: kept as is, a network failure, else `${what}: ${message}`. */
export function testFailure(err: unknown, target: string, what: string): ConnectionTestError {
  if (err instanceof ConnectionTestError) return err;
  return networkFailure(err, target) ?? new ConnectionTestError(`${what}: ${errorMessage(err)}`);
}

/**
 * Runs `work` until it settles or `signal` aborts. On abort `cleanup` runs (destroy the socket, kill the child) and
 * the promise rejects at once, so a driver without AbortSignal support cannot hold a test past its time.
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal, cleanup: () => void = () => {}): Promise<T> {
  work.catch(() => {}); // a late failure after abort is nobody's to handle
  const stop = () => {
    try {
      cleanup();
    } catch {
      // the connection is already gone
    }
  };
  if (signal.aborted) {
    stop();
    return Promise.reject(new ConnectionTestError('aborted'));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      stop();
      reject(new ConnectionTestError('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** `host:port` of a URL, with the scheme's default port when it has none. */
export function hostPort(u: URL, defaultPort: number): string {
  return `${u.hostname}:${u.port || defaultPort}`;
}
