import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { hash } from '@node-rs/argon2';
import { beforeAll, describe, expect, it } from 'vitest';
import { cpuIsa, loadNativeArgon2, type Isa, type NativeArgon2 } from './argon2-native.js';
import { argon2Load, argon2Verifier, hashSecret, verifySecret } from './crypto.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const linuxX64 = process.platform === 'linux' && process.arch === 'x64';
const hasCompiler = spawnSync(process.env.CC || 'cc', ['--version'], { stdio: 'ignore' }).status === 0;
const cpuHas = linuxX64 ? cpuIsa(readFileSync('/proc/cpuinfo', 'utf8')) : null;
// where it can be built it must be: the machines the suite runs on have a compiler and AVX2 or better
const expectNative = linuxX64 && hasCompiler && cpuHas !== null;
const ISAS: Isa[] = cpuHas === 'avx512' ? ['avx512', 'avx2'] : cpuHas === 'avx2' ? ['avx2'] : [];

beforeAll(() => {
  // as `npm test` does first (pretest): a no-op when the libraries are up to date
  const built = spawnSync(process.execPath, ['scripts/build-native.mjs'], { cwd: root, encoding: 'utf8' });
  expect(built.status, built.stderr).toBe(0);
}, 120_000);

describe('cpuIsa', () => {
  it('picks AVX-512, else AVX2, else nothing, from the flags line', () => {
    expect(cpuIsa('processor\t: 0\nflags\t\t: fpu sse2 avx avx2 avx512f avx512bw\n')).toBe('avx512');
    expect(cpuIsa('flags\t\t: fpu sse2 avx avx2 bmi2\n')).toBe('avx2');
    expect(cpuIsa('flags\t\t: fpu sse2 sse4_2 avx\n')).toBeNull();
    expect(cpuIsa('no flags here')).toBeNull();
  });
});

describe.runIf(expectNative)('the native argon2id verifier', () => {
  const params = { algorithm: 2 as const, memoryCost: 19_456, timeCost: 2, parallelism: 1 };
  let phc: string;
  beforeAll(async () => {
    phc = await hash('correct horse battery staple', params);
  });

  it('loads on this machine (the build ran)', () => {
    expect(loadNativeArgon2()?.isa).toBe(cpuHas);
    expect(argon2Verifier()).toBe(`native (${cpuHas})`);
  });

  for (const isa of ISAS) {
    describe(isa, () => {
      let v: NativeArgon2;
      const block = Buffer.alloc(params.memoryCost * 1024);
      beforeAll(() => {
        v = loadNativeArgon2(undefined, isa)!;
        expect(v.isa).toBe(isa);
      });

      it('agrees with @node-rs/argon2 on its hashes, right and wrong secrets', async () => {
        expect(await v.verify(phc, 'correct horse battery staple', block)).toBe(true);
        expect(await v.verify(phc, 'correct horse battery stapl', block)).toBe(false);
        expect(await v.verify(phc, '', block)).toBe(false);
        const odd = 'pässwörd ☃ \u0000 tail';
        const oddHash = await hash(odd, params);
        expect(await v.verify(oddHash, odd, block)).toBe(true); // bytes after a NUL still count
        expect(await v.verify(oddHash, 'pässwörd ☃ ', block)).toBe(false);
        const empty = await hash('', params);
        expect(await v.verify(empty, '', block)).toBe(true);
      });

      it('reuses the block across calls and is right after a wrong answer', async () => {
        for (let i = 0; i < 3; i++) {
          expect(await v.verify(phc, 'wrong', block)).toBe(false);
          expect(await v.verify(phc, 'correct horse battery staple', block)).toBe(true);
        }
      });

      it('allocates for a hash that needs more memory than the block, and takes a smaller one', async () => {
        const small = Buffer.alloc(1024 * 1024);
        expect(await v.verify(phc, 'correct horse battery staple', small)).toBe(true);
        const cheap = await hash('x', { ...params, memoryCost: 1024, timeCost: 3 });
        expect(await v.verify(cheap, 'x', block)).toBe(true);
        expect(await v.verify(cheap, 'y', block)).toBe(false);
      });

      it('answers null for what it does not read (argon2i/argon2d, malformed), so the caller asks @node-rs/argon2', async () => {
        const argon2i = await hash('x', { ...params, algorithm: 1 });
        expect(await v.verify(argon2i, 'x', block)).toBeNull();
        expect(await v.verify('$argon2id$v=19$m=19456,t=2,p=1$bad', 'x', block)).toBeNull();
        expect(await v.verify('', 'x', block)).toBeNull();
        expect(await v.verify(`${phc.slice(0, 20)}\u0000${phc.slice(20)}`, 'correct horse battery staple', block)).toBeNull();
        // a tampered digest is a mismatch, not an error
        const last = phc.at(-2) === 'A' ? 'B' : 'A';
        expect(await v.verify(`${phc.slice(0, -2)}${last}${phc.at(-1)}`, 'correct horse battery staple', block)).toBe(false);
      });
    });
  }

  it('verifySecret: right, wrong, argon2i (through @node-rs/argon2), malformed; concurrent calls within the slots', async () => {
    const own = await hashSecret('s3cret');
    const argon2i = await hash('s3cret', { ...params, algorithm: 1 });
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => verifySecret(own, i % 2 ? 's3cret' : 'nope')),
      verifySecret(argon2i, 's3cret'),
      verifySecret(argon2i, 'nope'),
      verifySecret('not a hash', 's3cret'),
    ]);
    expect(answers).toEqual([false, true, false, true, false, true, true, false, false]);
    expect(argon2Load()).toMatchObject({ running: 0, waiting: 0 });
  });
});

describe.runIf(linuxX64)('where it cannot load', () => {
  it('answers null for a directory without the libraries, and with ARGON2_NATIVE=off', () => {
    expect(loadNativeArgon2('/nonexistent')).toBeNull();
    const before = process.env.ARGON2_NATIVE;
    process.env.ARGON2_NATIVE = 'off';
    try {
      expect(loadNativeArgon2()).toBeNull();
    } finally {
      if (before === undefined) delete process.env.ARGON2_NATIVE;
      else process.env.ARGON2_NATIVE = before;
    }
  });
});
