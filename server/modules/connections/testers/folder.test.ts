import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { folderTester } from './folder.js';
import { ConnectionTestError, type HydratedConnection } from './types.js';

const ctx = { signal: new AbortController().signal, timeoutMs: 10_000 };
const conn = (over: Partial<HydratedConnection>): HydratedConnection => ({
  name: 'f', namespace: 'default', type: 'folder', url: '', username: '', password: '', certificate: '', insecure_tls: false,
  properties: {}, secrets: [], ...over,
});
const dir = mkdtempSync(join(tmpdir(), 'conn-folder-'));
writeFileSync(join(dir, 'a.txt'), 'a');
mkdirSync(join(dir, 'sub'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('folder tester', () => {
  it('passes for a readable folder (properties.path, or a file:// url) and counts its entries', async () => {
    expect(await folderTester(conn({ properties: { path: dir } }), ctx)).toEqual({ path: dir, entries: 2 });
    expect(await folderTester(conn({ url: `file://${dir}` }), ctx)).toEqual({ path: dir, entries: 2 });
  });

  it.each([
    ['a missing path', () => ({ properties: { path: join(dir, 'nope') } }), /does not exist/],
    ['a file', () => ({ properties: { path: join(dir, 'a.txt') } }), /is not a folder/],
    ['a relative path', () => ({ properties: { path: 'data' } }), /must be absolute/],
    ['no path', () => ({}), /path is required/],
  ])('fails for %s', async (_n, over, message) => {
    const err = await folderTester(conn(over()), ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionTestError);
    expect((err as Error).message).toMatch(message);
  });

  it.skipIf(process.getuid?.() === 0)('fails for a folder it may not read', async () => {
    const locked = join(dir, 'locked');
    mkdirSync(locked, { mode: 0o000 });
    try {
      await expect(folderTester(conn({ properties: { path: locked } }), ctx)).rejects.toThrow(/not readable/);
    } finally {
      chmodSync(locked, 0o700);
    }
  });
});
