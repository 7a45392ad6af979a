import { chmod, mkdir, mkdtemp, rm, symlink, utimes, lutimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkContext } from '../../../tests/fixtures/servers/check-context.js';
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
  it('lists the files of the folder (a symlink as its target, sub-directories not entered)', async () => {
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
    expect(paths(await run({ path: dir, filter: { maxSize: '50' } }))).toEqual(['c.txt']);
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

  it('lists a symlink with its target\'s size and time (os.Stat, as the reference); a dangling one as itself', async () => {
    const r = await run({ path: dir, filter: { regex: '^link$' } });
    const a = (await run({ path: dir, filter: { regex: '^a\\.log$' } })).data.files as Array<Record<string, unknown>>;
    expect(r.data.files).toEqual([{ ...a[0], name: 'link', path: 'link' }]);
    const other = await mkdtemp(join(tmpdir(), 'health-folder-links-'));
    try {
      await symlink(join(other, 'gone'), join(other, 'dangling'));
      await symlink(join(dir, 'sub'), join(other, 'subdir'));
      const d = await run({ path: other, recursive: true });
      // a symlinked directory is a directory: not listed, and not entered even when recursive
      expect(d.data.files).toEqual([expect.objectContaining({ name: 'dangling', mode: expect.stringMatching(/^Lrwx/) })]);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('gives each file the reference\'s fields, and smallest/largest', async () => {
    await chmod(join(dir, 'c.txt'), 0o640);
    const r = await run({ path: dir, filter: { regex: '^c\\.txt$' } });
    const c = { name: 'c.txt', path: 'c.txt', size: 10, mode: '-rw-r-----', is_dir: false, modified: expect.stringMatching(/Z$/) };
    expect(r.data).toMatchObject({ files: [c], smallest: c, largest: c, oldest: c, newest: c, errorType: '' });
    expect(r.data.size).toBe(r.data.totalSize);
  });

  it('reports an empty listing with the folder\'s own time as oldest and newest (reference)', async () => {
    const r = await run({ path: join(dir, 'sub'), filter: { regex: '^nothing' } });
    expect(r.data).toMatchObject({ count: 0, files: [], oldest: { name: 'sub', is_dir: true, mode: expect.stringMatching(/^d/) } });
    expect(r.data.newest).toEqual(r.data.oldest);
  });

  it.each([
    [{ minCount: 5 }, 'min_count'],
    [{ maxCount: 1 }, 'max_count'],
    [{ minAge: '1h' }, 'min_age'],
    [{ maxAge: '1m' }, 'max_age'],
    [{ minSize: '1kb' }, 'min_size'],
    [{ maxSize: '1kb' }, 'max_size'],
    [{ availableSize: '1000000PB' }, 'available_size'],
    [{ totalSize: '1000000PB' }, 'total_size'],
    [{ maxAge: 'soon' }, 'configuration_error'],
  ])('names the failed test %j as errorType %s, for templates and metrics', async (test, errorType) => {
    const r = await run({ path: dir, ...test });
    expect(r.pass).toBe(false);
    expect(r.data.errorType).toBe(errorType);
  });

  it('names a failed listing errorType listing_error', async () => {
    expect((await run({ path: join(dir, 'a.log') })).data.errorType).toBe('listing_error');
  });

  describe('a glob path (doublestar, as the reference)', () => {
    const globbed = async (pattern: string, extra: Record<string, unknown> = {}) => paths(await run({ path: join(dir, pattern), ...extra }));

    it('lists the files one segment matches, not directories', async () => {
      expect(await globbed('*')).toEqual(['a.log', 'b.log', 'c.txt', 'link']);
      expect(await globbed('*.log')).toEqual(['a.log', 'b.log']);
      expect(await globbed('?.txt')).toEqual(['c.txt']);
      expect(await globbed('[ab].log')).toEqual(['a.log', 'b.log']);
      expect(await globbed('[!ab].*')).toEqual(['c.txt']);
      expect(await globbed('{a,c}.*')).toEqual(['a.log', 'c.txt']);
      expect(await globbed('*/*.log')).toEqual(['sub/d.log']);
    });

    it('matches any depth with ** (none included), and filters and tests the matches', async () => {
      expect(await globbed('**/*')).toEqual(['a.log', 'b.log', 'c.txt', 'link', 'sub/d.log']);
      expect(await globbed('**/*.log')).toEqual(['a.log', 'b.log', 'sub/d.log']);
      expect(await globbed('**/d.log')).toEqual(['sub/d.log']);
      expect(await globbed('**/*.log', { filter: { minSize: '1kb' } })).toEqual(['b.log', 'sub/d.log']);
      const r = await run({ path: join(dir, '**', '*.log'), minCount: 4 });
      expect(r).toMatchObject({ pass: false, error: 'too few files 3 < 4', data: { errorType: 'min_count', exists: true } });
      expect((await run({ path: join(dir, '**', '*.log'), maxAge: '1h' })).data.newest).toMatchObject({ name: 'd.log' });
    });

    it('counts no match, or a missing base, as zero files', async () => {
      expect(await run({ path: join(dir, '*.zip') })).toMatchObject({ pass: true, data: { count: 0, exists: true } });
      expect(await run({ path: join(dir, 'not-there', '*.zip'), minCount: 1 }))
        .toMatchObject({ pass: false, error: 'too few files 0 < 1', data: { exists: false } });
    });
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
