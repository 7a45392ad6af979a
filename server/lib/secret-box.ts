import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Secrets stored encrypted at rest (issue 14: a playbook run's `secret` parameters): AES-256-GCM with a random 12-byte
 * IV, sealed as `enc:v1:` + base64(iv | 16-byte tag | ciphertext). The key comes from SECRETS_KEY, else from a key
 * file created once (mode 0600) under DATA_DIR, so a console with the same data directory can open what it sealed.
 */

export const SEALED_PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** The file under DATA_DIR that holds the key when SECRETS_KEY is not set. */
export const SECRETS_KEY_FILE = 'secrets.key';
/** A fixed salt: a passphrase must always give the same key (it is the key's only input), so the salt cannot vary. */
const PASSPHRASE_SALT = 'ops-console/secret-box/v1';

/** Whether a stored value is sealed by sealSecret (anything else is plain text). */
export function isSealed(v: unknown): v is string {
  return typeof v === 'string' && v.startsWith(SEALED_PREFIX);
}

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new Error(`secret key must be ${KEY_BYTES} bytes, got ${key.length}`);
}

/** `plain` encrypted with `key` (32 bytes): `enc:v1:` + base64(iv | tag | ciphertext); a new IV each call. */
export function sealSecret(plain: string, key: Buffer): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

/** The plain text of a sealed value; throws when it is not sealed, was sealed with another key or was tampered with. */
export function openSecret(sealed: string, key: Buffer): string {
  checkKey(key);
  if (!isSealed(sealed)) throw new Error('not a sealed secret');
  const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('sealed secret is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('sealed secret could not be opened (wrong key or tampered with)');
  }
}

/**
 * SECRETS_KEY as a 32-byte key: 64 hex characters, or base64 of 32 bytes, else a passphrase (scrypt with a fixed salt).
 */
export function keyFromSetting(setting: string): Buffer {
  const s = setting.trim();
  if (/^[0-9a-fA-F]{64}$/.test(s)) return Buffer.from(s, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(s)) {
    const b = Buffer.from(s, s.includes('-') || s.includes('_') ? 'base64url' : 'base64');
    if (b.length === KEY_BYTES) return b;
  }
  return scryptSync(s, PASSPHRASE_SALT, KEY_BYTES);
}

/**
 * Reads a key file under `dataDir`, creating it the first time (32 random bytes in `o.encoding`, mode 0600). The file
 * is written under a temporary name and linked into place, so a second process starting at once reads a whole key,
 * the same one. `o.parse` turns the file's text into the key (null: malformed, an error naming the file and `o.hint`).
 * Shared by SECRETS_KEY's file (secrets.key, hex) and the sign-in key (auth-encryption.key, base64).
 */
export function keyFromFile(dataDir: string, fileName: string, o: {
  encoding: 'hex' | 'base64'; parse(text: string): Buffer | null; hint: string;
}): Buffer {
  const path = join(dataDir, fileName);
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true });
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(tmp, randomBytes(KEY_BYTES).toString(o.encoding) + '\n', { mode: 0o600, flag: 'wx' });
    try {
      linkSync(tmp, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      unlinkSync(tmp);
    }
  }
  const key = o.parse(readFileSync(path, 'utf8'));
  if (!key) throw new Error(`${path} does not hold ${o.hint}`);
  return key;
}

const hexKey = (text: string): Buffer | null => {
  const t = text.trim();
  return /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : null;
};

const cache = new Map<string, Buffer>();

/** The console's key for sealed secrets: from SECRETS_KEY when set, else DATA_DIR/secrets.key (created once). */
export function secretsKey(config: { SECRETS_KEY?: string; DATA_DIR: string }): Buffer {
  const id = config.SECRETS_KEY ? `setting:${config.SECRETS_KEY}` : `file:${config.DATA_DIR}`;
  let key = cache.get(id);
  if (!key) {
    key = config.SECRETS_KEY
      ? keyFromSetting(config.SECRETS_KEY)
      : keyFromFile(config.DATA_DIR, SECRETS_KEY_FILE, { encoding: 'hex', parse: hexKey, hint: 'a 32-byte hex key' });
    cache.set(id, key);
  }
  return key;
}
