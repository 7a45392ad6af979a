import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { keyFromFile } from '../../lib/secret-box.js';

/**
 * The sign-in secrets kept at rest (issue 17): TOTP secrets sealed with AES-256-GCM, recovery codes keyed-hashed.
 * The key is AUTH_ENCRYPTION_KEY (32 bytes: 64 hex characters or base64), else a key generated once into
 * DATA_DIR/auth-encryption.key (mode 0600). Unlike SECRETS_KEY there is no passphrase form: a malformed key refuses
 * to start, so a typo cannot silently make every stored authenticator unreadable.
 *
 * A sealed value is `v1.` + base64url(iv(12) | tag(16) | ciphertext), bound by GCM's additional data to what it is
 * for (e.g. `totp:<person id>`), so a sealed secret copied to another person's row does not open.
 */

export const AUTH_KEY_FILE = 'auth-encryption.key';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PREFIX = 'v1.';

export interface AuthKeyConfig {
  AUTH_ENCRYPTION_KEY?: string;
  DATA_DIR: string;
}

/** Why an AUTH_ENCRYPTION_KEY value is refused, or null when it is 32 bytes as hex or base64(url). */
export function authKeyProblem(setting: string): string | null {
  return parseKey(setting) ? null
    : `AUTH_ENCRYPTION_KEY must be 32 bytes written as 64 hex characters or base64 (e.g. \`openssl rand -base64 32\`); `
      + `the value given (${setting.trim().length} characters) is neither`;
}

function parseKey(setting: string): Buffer | null {
  const s = setting.trim();
  if (/^[0-9a-fA-F]{64}$/.test(s)) return Buffer.from(s, 'hex');
  if (/^[A-Za-z0-9+/]{43}=?$/.test(s) || /^[A-Za-z0-9_-]{43}$/.test(s)) {
    const b = Buffer.from(s, /[-_]/.test(s) ? 'base64url' : 'base64');
    if (b.length === KEY_BYTES) return b;
  }
  return null;
}

const cache = new Map<string, Buffer>();

/**
 * The key sealing sign-in secrets. Throws with a clear message on a malformed AUTH_ENCRYPTION_KEY (main.ts calls it
 * at start-up so the console refuses to start rather than fail at the first sign-in).
 */
export function authEncryptionKey(config: AuthKeyConfig): Buffer {
  const id = config.AUTH_ENCRYPTION_KEY ? `setting:${config.AUTH_ENCRYPTION_KEY}` : `file:${config.DATA_DIR}`;
  let key = cache.get(id);
  if (!key) {
    if (config.AUTH_ENCRYPTION_KEY) {
      const problem = authKeyProblem(config.AUTH_ENCRYPTION_KEY);
      if (problem) throw new Error(problem);
      key = parseKey(config.AUTH_ENCRYPTION_KEY)!;
    } else {
      // the same create-once, link-into-place file helper as SECRETS_KEY's (server/lib/secret-box.ts)
      key = keyFromFile(config.DATA_DIR, AUTH_KEY_FILE, {
        encoding: 'base64', parse: parseKey, hint: 'a 32-byte key (hex or base64); restore it or set AUTH_ENCRYPTION_KEY',
      });
    }
    cache.set(id, key);
  }
  return key;
}

/** `plain` sealed with AES-256-GCM under `key`, bound to `context` (say `totp:<person id>`); a fresh IV each call. */
export function seal(plain: string, key: Buffer, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The plain text of a sealed value; throws when the key or context differ or it was tampered with. */
export function open(sealed: string, key: Buffer, context: string): string {
  if (!sealed.startsWith(PREFIX)) throw new Error('not a sealed sign-in secret');
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('sealed sign-in secret is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('sealed sign-in secret could not be opened (another AUTH_ENCRYPTION_KEY, or tampered with)');
  }
}

const hmacKeys = new WeakMap<Buffer, Buffer>();

/**
 * A keyed hash for short, high-entropy codes (recovery codes): HMAC-SHA256 under a key derived from the encryption
 * key, over a per-code salt and the code. Without the key (it is not in the database) a dump gives no offline guess.
 */
export function keyedHash(key: Buffer, salt: string, value: string): string {
  let k = hmacKeys.get(key);
  if (!k) {
    k = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'ops-console/lookup-secret/v1', 32));
    hmacKeys.set(key, k);
  }
  return createHmac('sha256', k).update(salt).update('\0').update(value).digest('hex');
}
