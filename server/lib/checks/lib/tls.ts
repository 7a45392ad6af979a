import { z } from 'zod';
import { EnvVar, envValue } from './env-var.js';
import { InvalidSpecError } from './result.js';

/**
 * The reference's `tlsConfig` of a check: verification switch, a CA bundle and a client certificate and key (mTLS),
 * each a PEM string or an EnvVar (`valueFrom` a Secret, resolved by the runner before the run). `enable` is the
 * redis check's switch to speak TLS without a `rediss://` url. `handshakeTimeout` is accepted and not used: the
 * check's own timeout bounds the handshake.
 */
export const TlsConfig = z.object({
  insecureSkipVerify: z.boolean().optional(),
  ca: EnvVar.optional(),
  cert: EnvVar.optional(),
  key: EnvVar.optional(),
  enable: z.boolean().optional(),
  handshakeTimeout: z.union([z.number(), z.string()]).optional(),
});
export type TlsConfig = z.infer<typeof TlsConfig>;

/** Node TLS options from a tlsConfig; throws InvalidSpecError for a certificate without its key (or the reverse). */
export function tlsOptions(t: TlsConfig | undefined): { rejectUnauthorized: boolean; ca?: string; cert?: string; key?: string } {
  const ca = envValue(t?.ca, 'tlsConfig.ca');
  const cert = envValue(t?.cert, 'tlsConfig.cert');
  const key = envValue(t?.key, 'tlsConfig.key');
  if ((cert === undefined) !== (key === undefined)) {
    throw new InvalidSpecError(`tlsConfig.${cert === undefined ? 'cert' : 'key'} is required with tlsConfig.${cert === undefined ? 'key' : 'cert'} (a client certificate needs its key)`);
  }
  return { rejectUnauthorized: !t?.insecureSkipVerify, ...(ca && { ca }), ...(cert && { cert, key }) };
}

/** The client key is a secret: values to mask in what the check reports. */
export function tlsSecrets(t: TlsConfig | undefined): string[] {
  const key = typeof t?.key === 'string' ? t.key : t?.key?.value;
  return key ? [key] : [];
}
