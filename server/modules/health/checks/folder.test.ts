import { mkdir, mkdtemp, rm, symlink, utimes, lutimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkContext } from '../../../../tests/fixtures/servers/check-context.js';
import { folderCheck } from './folder.js';

const run = (spec: Parameters<typeof folderCheck.run>[0], ctx = checkContext()) => folderCheck.run(folderCheck.schema.parse(spec), ctx);

const MIN = 60_000;
const HOUR = 60 * MIN;
let dir: string;
let bTime: Date;

async function file(rel: string, size: number, ageMs: number) {
  const path = join(dir, rel);
  await writeFile(path, Buffer.alloc(size, 'x'));
  const t = new Date(Date.now() - ageMs);
  await utimes(path, t, t);
  return t;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'health-folder-'));
  await mkdir(join(dir, 'sub'));
  await file('a.log', 100, 3 * HOUR);
  bTime = await file('b.log', 2048, 30 * MIN);
  await file('c.txt', 10, 48 * HOUR);
  await file('sub/d.log', 5000, 10 * MIN);
  await symlink(join(dir, 'a.log'), join(dir, 'link'));
  const old = new Date(Date.now() - 5 * HOUR);
  await lutimes(join(dir, 'link'), old, old);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const paths = (r: { data: Record<string, unknown> }) => (r.data.files as Array<{ path: string }>).map((f) => f.path).sort();

describe('folder check on a real directory', () => {
  it('lists the files of the folder (symlinks listed, sub-directories not entered)', async () => {
    const r = await run({ path: dir });
    expect(r.error).toBeUndefined();
    expect(r.pass).toBe(true);
    expect(r.message).toBe('4 files');
    expect(paths(r)).toEqual(['a.log', 'b.log', 'c.txt', 'link']);
    expect(r.data).toMatchObject({
      count: 4,
      exists: true,
      newest: { name: 'b.log', size: 2048 },
      oldest: { name: 'c.txt' },
      minSize: { name: 'c.txt', size: 10 },
      maxSize: { name: 'b.log' },
    });
    expect(r.data.availableSize).toBeGreaterThan(0);
    expect(r.data.totalSize).toBeGreaterThan(0);
  });

  it('walks sub-directories when recursive, with paths relative to the folder', async () => {
    const r = await run({ path: dir, recursive: true, filter: { regex: '\\.log$' } });
    expect(paths(r)).toEqual(['a.log', 'b.log', 'sub/d.log']);
    expect(r.data).toMatchObject({ count: 3, newest: { path: 'sub/d.log' }, filesSize: 100 + 2048 + 5000 });
  });

  it('tests minCount and maxCount', async () => {
    expect(await run({ path: dir, minCount: 5 })).toMatchObject({ pass: false, error: 'too few files 4 < 5' });
    expect(await run({ path: dir, maxCount: 3 })).toMatchObject({ pass: false, error: 'too many files 4 > 3' });
    expect((await run({ path: dir, minCount: 4, maxCount: 4 })).pass).toBe(true);
  });

  it('tests the age of the newest file against maxAge and minAge', async () => {
    expect((await run({ path: dir, maxAge: '1h' })).pass).toBe(true);
    const old = await run({ path: dir, maxAge: '20m' });
    expect(old.pass).toBe(false);
    expect(old.error).toMatch(/^b\.log is too old: 30m\d*s? > 20m$/);
    const young = await run({ path: dir, minAge: '1h' });
    expect(young.error).toMatch(/^b\.log is too new: 30m\d*s? < 1h$/);
    expect((await run({ path: dir, minAge: '20m' })).pass).toBe(true);
  });

  it('tests the smallest and largest file against minSize and maxSize', async () => {
    expect(await run({ path: dir, minSize: '50b' })).toMatchObject({ pass: false, error: 'c.txt is too small: 10B < 50b' });
    expect(await run({ path: dir, maxSize: '1kb' })).toMatchObject({ pass: false, error: 'b.log is too large: 2KB > 1kb' });
    expect((await run({ path: dir, maxSize: '2kb', minSize: 10 })).pass).toBe(true);
  });

  it('filters by age, size and since before testing', async () => {
    expect(paths(await run({ path: dir, filter: { maxAge: '1h' } }))).toEqual(['b.log']);
    expect(paths(await run({ path: dir, filter: { minAge: '1d' } }))).toEqual(['c.txt']);
    expect(paths(await run({ path: dir, filter: { minSize: '1kb' } }))).toEqual(['b.log']);
    expect(paths(await run({ path: dir, filter: { maxSize: '50' } }))).toEqual(['c.txt', 'link']);
    expect(paths(await run({ path: dir, filter: { since: 'now-1h' } }))).toEqual(['b.log']);
    // since is exclusive by a second, so the newest time of one run can be the since of the next
    expect(paths(await run({ path: dir, filter: { since: bTime.toISOString() } }))).toEqual([]);
    const r = await run({ path: dir, filter: { regex: '^nothing' }, minAge: '1h', maxSize: '1b' });
    expect(r).toMatchObject({ pass: true, data: { count: 0 } }); // no files: age and size tests do not apply
  });

  it('tests filesystem space', async () => {
    expect((await run({ path: dir, availableSize: '1b', totalSize: '1kb' })).pass).toBe(true);
    expect((await run({ path: dir, availableSize: '1000000PB' })).error).toMatch(/^available size too small: .* < 1000000PB$/);
    expect((await run({ path: dir, totalSize: '1000000PB' })).error).toMatch(/^total size too small/);
  });

  it('counts a missing folder as empty (reference), so minCount catches it', async () => {
    const missing = join(dir, 'not-there');
    expect(await run({ path: missing })).toMatchObject({ pass: true, data: { count: 0, exists: false } });
    expect(await run({ path: missing, minCount: 1 })).toMatchObject({ pass: false, error: 'too few files 0 < 1' });
  });

  it('fails on a path that is a file', async () => {
    const r = await run({ path: join(dir, 'a.log') });
    expect(r).toMatchObject({ pass: false, error: `${join(dir, 'a.log')} is not a directory` });
    expect(r.invalid).toBeFalsy();
  });

  it('stops walking when the signal fires', async () => {
    const many = await mkdtemp(join(tmpdir(), 'health-folder-many-'));
    try {
      await Promise.all(Array.from({ length: 1100 }, (_, i) => writeFile(join(many, `f${i}`), '')));
      const ctrl = new AbortController();
      ctrl.abort();
      const r = await run({ path: many }, { signal: ctrl.signal, timeoutMs: 1 });
      expect(r).toMatchObject({ pass: false, error: 'timed out after 1 ms' });
      expect((await run({ path: many })).data.count).toBe(1100);
    } finally {
      await rm(many, { recursive: true, force: true });
    }
  });

  it.each([
    [{}, /path is required/],
    [{ path: 'relative/dir' }, /must be absolute/],
    [{ path: 's3://bucket/prefix' }, /only local folders/],
    [{ path: '\\\\server\\share' }, /only local folders/],
    [{ path: '/tmp', filter: { regex: '(' } }, /filter\.regex/],
    [{ path: '/tmp', maxAge: 'yesterday' }, /maxAge: invalid duration/],
    [{ path: '/tmp', minSize: '5 apples' }, /minSize: invalid size/],
    [{ path: '/tmp', filter: { since: 'last tuesday' } }, /filter\.since/],
  ])('reports %j as invalid', async (spec, message) => {
    const r = await run(spec);
    expect(r).toMatchObject({ pass: false, invalid: true });
    expect(r.error).toMatch(message);
  });
});
