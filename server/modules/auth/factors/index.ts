import type { Factor } from '../flows/types.js';
import { passwordFactor } from './password.js';
import { lookupSecretFactor } from './lookup-secret.js';
import { totpFactor } from './totp.js';
import { webauthnFactor } from './webauthn.js';
import { passkeyFactor } from './passkey.js';

/**
 * The sign-in factors, one line each (password, totp, lookup_secret, webauthn, passkey). Order is the order their
 * nodes appear in a flow.
 */
export const FACTORS: Factor[] = [
  passwordFactor,
  totpFactor,
  lookupSecretFactor,
  webauthnFactor,
  passkeyFactor,
];

export const factorByMethod = (method: string): Factor | undefined => FACTORS.find((f) => f.method === method);
