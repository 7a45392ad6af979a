/**
 * The native argon2id verifier (native/argon2/verify.c, built into dist/native by scripts/build-native.mjs), loaded
 * through koffi: the reference implementation's SIMD code for the CPU's best instruction set (AVX-512 or AVX2) and a
 * work area the caller keeps between calls. One verify (m=19456 KiB, t=2, p=1) measured 7.7–9 ms against 13.2 ms
 * with @node-rs/argon2 on the same 2-core VM (see server/modules/auth/README.md, "Performance"). Where it cannot load
 * (not built, not Linux x86-64, a CPU without AVX2, koffi missing, the self-test fails) or with `ARGON2_NATIVE=off`,
 * `loadNativeArgon2()` answers null and server/lib/crypto.ts verifies with @node-rs/argon2; hashing always uses it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Isa = 'avx512' | 'avx2';

export interface NativeArgon2 {
  /** The instruction set of the library loaded. */
  isa: Isa;
  /**
   * Verifies `secret` against an argon2id PHC string with `block` as the work area (at least m KiB; a smaller one
   * makes the library allocate). true: a match; false: a wrong secret; null: not an argon2id string this verifier
   * reads (the caller asks @node-rs/argon2).
   */
  verify(phc: string, secret: string, block: Buffer): Promise<boolean | null>;
}

const ARGON2_OK = 0;
const ARGON2_VERIFY_MISMATCH = -35;
// a known answer checked at load (made with @node-rs/argon2; tiny parameters so it costs microseconds)
const SELF_TEST = {
  phc: '$argon2id$v=19$m=64,t=1,p=1$MDEyMzQ1Njc4OWFiY2RlZg$eGLNPMRUTlg3ZSX7YhlkQ0NbPefhhDOhUzgf3vm47z0',
  secret: 'ops-console argon2 self-test',
};

type VerifyFn = ((encoded: Buffer, pwd: Buffer, pwdlen: number, block: Buffer, blockBytes: number) => number) & {
  async: (encoded: Buffer, pwd: Buffer, pwdlen: number, block: Buffer, blockBytes: number,
    done: (err: unknown, result: number) => void) => void;
};

// where scripts/build-native.mjs puts the libraries: dist/native beside dist/web (as plugins/spa.ts finds it), which
// the compiled build (dist/node) links
const NATIVE_DIR = fileURLToPath(new URL('../../dist/native', import.meta.url));

/** The call's arguments as Buffers: their memory stays put and alive (referenced by the caller) while the call runs. */
function args(phc: string, secret: string): [Buffer, Buffer, number] {
  const pwd = Buffer.from(secret);
  return [Buffer.from(`${phc}\0`), pwd, pwd.length];
}

/** The best instruction set this CPU (and kernel) offers among those built, from /proc/cpuinfo's flags. */
export function cpuIsa(cpuinfo: string): Isa | null {
  const flags = new Set(/^flags\s*:(.*)$/m.exec(cpuinfo)?.[1]?.trim().split(/\s+/) ?? []);
  if (flags.has('avx512f')) return 'avx512';
  if (flags.has('avx2')) return 'avx2';
  return null;
}

/** Why the native verifier is not used, or null when it is (for the start-up log and the tests). */
export let nativeArgon2Unavailable: string | null = null;

/**
 * Loads the verifier for this CPU, or null (see the module comment). `dir` overrides where the libraries are; `only`
 * loads that instruction set's build if the CPU has it (the tests run both).
 */
export function loadNativeArgon2(dir = NATIVE_DIR, only?: Isa): NativeArgon2 | null {
  const no = (why: string) => {
    nativeArgon2Unavailable = why;
    return null;
  };
  if (process.env.ARGON2_NATIVE === 'off') return no('ARGON2_NATIVE=off');
  if (process.platform !== 'linux' || process.arch !== 'x64') return no(`not built for ${process.platform}-${process.arch}`);
  let isa: Isa | null;
  try {
    isa = cpuIsa(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return no('/proc/cpuinfo unreadable');
  }
  if (!isa) return no('the CPU has neither AVX-512 nor AVX2');
  // an AVX-512 CPU also runs the AVX2 build, if only that one was built
  const candidates = (isa === 'avx512' ? ['avx512', 'avx2'] as const : ['avx2'] as const).filter((c) => !only || c === only);
  const found = candidates.find((c) => existsSync(join(dir, `libargon2-${c}.so`)));
  if (!found) return no(`not built (${join(dir, `libargon2-${isa}.so`)} missing: npm run build:native)`);
  let fn: VerifyFn;
  try {
    const koffi = createRequire(import.meta.url)('koffi');
    const lib = koffi.load(join(dir, `libargon2-${found}.so`));
    fn = lib.func('int ops_argon2id_verify(const void *encoded, const void *pwd, size_t pwdlen, void *block, size_t blockBytes)');
  } catch (err) {
    return no(`cannot load: ${(err as Error).message}`);
  }
  const sync = (phc: string, secret: string) => fn(...args(phc, secret), Buffer.alloc(0), 0);
  if (sync(SELF_TEST.phc, SELF_TEST.secret) !== ARGON2_OK || sync(SELF_TEST.phc, `${SELF_TEST.secret}!`) !== ARGON2_VERIFY_MISMATCH) {
    return no('self-test failed');
  }
  nativeArgon2Unavailable = null;
  return {
    isa: found,
    verify(phc, secret, block) {
      // the Buffers stay referenced here until the call on libuv's pool returns; a NUL inside the PHC string ends it
      // early, and the decoder then refuses it
      const call = args(phc, secret);
      return new Promise((resolve, reject) => {
        fn.async(...call, block, block.length, (err, result) => {
          if (err) reject(err);
          else if (result === ARGON2_OK) resolve(true);
          else if (result === ARGON2_VERIFY_MISMATCH) resolve(false);
          else resolve(null);
        });
      });
    },
  };
}
