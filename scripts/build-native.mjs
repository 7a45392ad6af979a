#!/usr/bin/env node
// Builds the native argon2id verifier (native/argon2) into dist/native/: one shared library per instruction set
// (libargon2-avx2.so, libargon2-avx512.so), of which server/lib/argon2-native.ts loads the best one the CPU has.
// Runs before `npm start`, `npm test`, the auth benchmark and in the image's build stage; a build that is up to date is
// skipped. Optional by design: without a C compiler, on another OS or architecture, the build is skipped with a notice
// and the server verifies with @node-rs/argon2 (slower, same results). Exits 0 in every such case.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { arch, platform } from 'node:process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'native/argon2');
const vendor = join(src, 'vendor');
const out = join(root, 'dist/native');
mkdirSync(out, { recursive: true }); // the image copies the directory, built or not

// opt.c is the library's SIMD code for x86-64; elsewhere @node-rs/argon2 is faster than the portable ref.c
if (platform !== 'linux' || arch !== 'x64') {
  console.log(`native argon2: skipped on ${platform}-${arch} (@node-rs/argon2 is used)`);
  process.exit(0);
}
const cc = process.env.CC || 'cc';
if (spawnSync(cc, ['--version'], { stdio: 'ignore' }).status !== 0) {
  console.warn(`native argon2: no C compiler (${cc}): skipped, @node-rs/argon2 is used (slower sign-ins)`);
  process.exit(0);
}

const sources = [
  join(src, 'verify.c'),
  ...['argon2.c', 'core.c', 'encoding.c', 'opt.c', 'blake2/blake2b.c'].map((f) => join(vendor, 'src', f)),
];
const inputs = [...sources, fileURLToPath(import.meta.url),
  ...readdirSync(join(vendor, 'src/blake2')).map((f) => join(vendor, 'src/blake2', f)),
  ...['core.h', 'encoding.h', 'thread.h'].map((f) => join(vendor, 'src', f)), join(vendor, 'include/argon2.h')];
const newest = Math.max(...inputs.filter(existsSync).map((f) => statSync(f).mtimeMs));

// the instruction sets opt.c selects at compile time (its __AVX2__ / __AVX512F__ branches)
const variants = { avx2: ['-mavx2'], avx512: ['-mavx2', '-mavx512f'] };
for (const [name, isa] of Object.entries(variants)) {
  const lib = join(out, `libargon2-${name}.so`);
  if (existsSync(lib) && statSync(lib).mtimeMs >= newest) continue;
  const tmp = `${lib}.${process.pid}.tmp`;
  const args = [
    '-O3', '-std=gnu11', '-fPIC', '-shared', '-fvisibility=hidden', ...isa,
    // one lane, so no threads; the library's own entry points stay internal (only ops_argon2id_verify is exported)
    '-DARGON2_NO_THREADS',
    '-I', join(vendor, 'include'), '-I', join(vendor, 'src'),
    '-Wl,-z,noexecstack', '-Wl,-z,relro', '-Wl,-z,now',
    '-o', tmp, ...sources,
  ];
  const run = spawnSync(cc, args, { encoding: 'utf8' });
  if (run.status !== 0) {
    rmSync(tmp, { force: true });
    console.warn(`native argon2: the ${name} build failed (skipped):\n${(run.stderr || run.error?.message || '').trim()}`);
    continue;
  }
  renameSync(tmp, lib);
  console.log(`native argon2: built ${lib}`);
}
