import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import { loadNativeArgon2, nativeArgon2Unavailable, type NativeArgon2 } from './argon2-native.js';

// Argon2id (algorithm 2 in @node-rs/argon2's const enum, which isolated modules cannot import).
const ARGON2ID = 2 as const;
const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };
// the native verifier's work areas, one per running verify (so at most ARGON2_SLOTS), kept for the next call
const BLOCK_BYTES = ARGON2_OPTIONS.memoryCost * 1024;
const blocks: Buffer[] = [];
let native: NativeArgon2 | null | undefined;

// At most one argon2 computation per core at once (libuv's pool has 4 threads, more than 2 cores): the others wait
// here in order, so a burst of sign-ins queues instead of starving the event loop's own threadpool work (DNS, fs).
const ARGON2_SLOTS = Math.max(1, availableParallelism());
let argon2Running = 0;
const argon2Waiting: (() => void)[] = [];

/** argon2 computations running now and waiting for a slot (tests check the bound). */
export const argon2Load = () => ({ running: argon2Running, waiting: argon2Waiting.length, slots: ARGON2_SLOTS });

async function inArgon2Slot<T>(work: () => Promise<T>): Promise<T> {
  if (argon2Running >= ARGON2_SLOTS) await new Promise<void>((go) => argon2Waiting.push(go));
  else argon2Running++;
  try {
    return await work();
  } finally {
    const next = argon2Waiting.shift();
    if (next) next(); // the slot passes straight to the next waiter
    else argon2Running--;
  }
}

/** An argon2id PHC string for a password or a token secret. */
export function hashSecret(secret: string): Promise<string> {
  return inArgon2Slot(() => hash(secret, ARGON2_OPTIONS));
}

/** Which argon2 verifier this process uses (loads it on first call): for the start-up log. */
export function argon2Verifier(): string {
  native ??= loadNativeArgon2();
  return native ? `native (${native.isa})` : `@node-rs/argon2 (native: ${nativeArgon2Unavailable})`;
}

/** Verifies a secret against its argon2id hash; a malformed hash counts as a mismatch. */
export async function verifySecret(phc: string, secret: string): Promise<boolean> {
  native ??= loadNativeArgon2();
  try {
    return await inArgon2Slot(async () => {
      if (native) {
        const block = blocks.pop() ?? Buffer.alloc(BLOCK_BYTES);
        try {
          const matched = await native.verify(phc, secret, block);
          if (matched !== null) return matched;
        } finally {
          blocks.push(block);
        }
      }
      return verify(phc, secret); // no native verifier, or a hash it does not read (not argon2id)
    });
  } catch {
    return false;
  }
}

/** A URL-safe random string with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Hex SHA-256, for looking up high-entropy random tokens (sessions, invites); passwords use argon2id. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time string comparison. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
