import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { isSealed, keyFromSetting, openSecret, sealSecret, secretsKey, SECRETS_KEY_FILE } from './secret-box.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'secret-box-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('sealSecret / openSecret', () => {
  const key = randomBytes(32);

  it('round-trips, with a fresh IV each time, and never contains the plain text', () => {
    const plain = 'p@ss wörd ✓';
    const a = sealSecret(plain, key);
    const b = sealSecret(plain, key);
    expect(a.startsWith('enc:v1:')).toBe(true);
    expect(a).not.toBe(b);
    expect(a).not.toContain('p@ss');
    expect(openSecret(a, key)).toBe(plain);
    expect(openSecret(sealSecret('', key), key)).toBe('');
    expect(isSealed(a)).toBe(true);
    expect(isSealed(plain)).toBe(false);
    expect(isSealed(42)).toBe(false);
  });

  it('throws on tampering, on another key and on plain text', () => {
    const sealed = sealSecret('secret', key);
    const raw = Buffer.from(sealed.slice('enc:v1:'.length), 'base64');
    for (const at of [0, 12, raw.length - 1]) {
      const bad = Buffer.from(raw);
      bad[at] ^= 1;
      expect(() => openSecret('enc:v1:' + bad.toString('base64'), key)).toThrow(/wrong key or tampered/);
    }
    expect(() => openSecret(sealed, randomBytes(32))).toThrow(/wrong key or tampered/);
    expect(() => openSecret('enc:v1:AAAA', key)).toThrow(/truncated/);
    expect(() => openSecret('secret', key)).toThrow(/not a sealed secret/);
    expect(() => sealSecret('x', randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('secretsKey', () => {
  it('takes SECRETS_KEY as hex, base64 or a passphrase', () => {
    const bytes = randomBytes(32);
    expect(keyFromSetting(bytes.toString('hex'))).toEqual(bytes);
    expect(keyFromSetting(bytes.toString('base64'))).toEqual(bytes);
    expect(keyFromSetting(bytes.toString('base64url'))).toEqual(bytes);
    const pass = keyFromSetting('correct horse battery staple');
    expect(pass.length).toBe(32);
    expect(keyFromSetting('correct horse battery staple')).toEqual(pass);
    expect(keyFromSetting('another passphrase')).not.toEqual(pass);
    const dir = tempDir();
    expect(secretsKey({ SECRETS_KEY: bytes.toString('hex'), DATA_DIR: dir })).toEqual(bytes);
    expect(() => statSync(join(dir, SECRETS_KEY_FILE))).toThrow();
  });

  it('creates DATA_DIR/secrets.key once, mode 0600, and reads the same key back', () => {
    const dir = join(tempDir(), 'nested');
    const key = secretsKey({ DATA_DIR: dir });
    const file = join(dir, SECRETS_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'hex')).toEqual(key);
    const sealed = sealSecret('kept across restarts', key);
    // a fresh process has no cache: read the file as it would
    const again = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
    expect(openSecret(sealed, again)).toBe('kept across restarts');
    expect(secretsKey({ DATA_DIR: dir })).toEqual(key);
  });

  it('gives processes starting at once on a new DATA_DIR one and the same key', async () => {
    const dir = join(tempDir(), 'shared');
    const module = fileURLToPath(new URL('./secret-box.ts', import.meta.url));
    const code = `import(${JSON.stringify(module)}).then((m) => console.log(m.secretsKey({ DATA_DIR: ${JSON.stringify(dir)} }).toString('hex')))`;
    const keys = await Promise.all([1, 2, 3, 4].map(() => new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--import', 'tsx', '-e', code], { timeout: 60_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout.trim())));
    })));
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(keys).size).toBe(1);
    expect(readdirSync(dir)).toEqual([SECRETS_KEY_FILE]);
  }, 120_000); // four Node processes loading TypeScript on a busy machine
});
