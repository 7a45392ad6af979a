import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

// Argon2id (algorithm 2 in @node-rs/argon2's const enum, which isolated modules cannot import).
const ARGON2ID = 2 as const;
const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/** An argon2id PHC string for a password or a token secret. */
export function hashSecret(secret: string): Promise<string> {
  return hash(secret, ARGON2_OPTIONS);
}

/** Verifies a secret against its argon2id hash; a malformed hash counts as a mismatch. */
export async function verifySecret(phc: string, secret: string): Promise<boolean> {
  try {
    return await verify(phc, secret);
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
