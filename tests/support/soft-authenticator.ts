import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A software WebAuthn authenticator for server tests: ES256 keys from node:crypto, attestation 'none', authenticator
 * data with its flags and signature counter. It answers the options JSON the server hands out, as a browser would
 * pass them through (base64url fields), with the response JSON a browser posts back.
 */

type Cbor = number | string | Uint8Array | Cbor[] | Map<number | string, Cbor> | { [k: string]: Cbor };

/** Enough CBOR for attestation objects and COSE keys: unsigned/negative ints, byte and text strings, arrays, maps. */
export function cbor(v: Cbor): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') {
    const s = Buffer.from(v, 'utf8');
    return Buffer.concat([head(3, s.length), s]);
  }
  if (v instanceof Uint8Array) return Buffer.concat([head(2, v.length), Buffer.from(v)]);
  if (Array.isArray(v)) return Buffer.concat([head(4, v.length), ...v.map(cbor)]);
  const entries = v instanceof Map ? [...v.entries()] : Object.entries(v);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, x]) => [cbor(k), cbor(x)])]);
}

const b64u = (b: Uint8Array): string => Buffer.from(b).toString('base64url');
const sha = (b: Uint8Array | string): Buffer => createHash('sha256').update(b).digest();

export interface SoftCredential {
  id: Buffer;
  rpId: string;
  userHandle: string | null;
  privateKey: KeyObject;
  counter: number;
  resident: boolean;
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
  authenticatorSelection?: { residentKey?: string; requireResidentKey?: boolean };
  excludeCredentials?: { id: string }[];
}
interface RequestOptions { challenge: string; rpId?: string; allowCredentials?: { id: string }[] }

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  /**
   * @param origin the page's origin as the browser reports it in clientDataJSON
   * @param o.userVerified whether it reports the user verified (flag UV); `counterStep` 0 models a key without a counter
   */
  constructor(readonly origin: string, readonly o: { userVerified?: boolean; counterStep?: number } = {}) {}

  private flags(extra: number): number {
    return 0x01 /* UP */ | (this.o.userVerified ? 0x04 : 0) | extra;
  }

  /** navigator.credentials.create: a new ES256 credential, attestation 'none'. */
  create(optionsJson: string | CreationOptions): Record<string, unknown> {
    const opts = typeof optionsJson === 'string' ? (JSON.parse(optionsJson) as CreationOptions) : optionsJson;
    const rpId = opts.rp.id as string;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = cbor(new Map<number, Cbor>([
      [1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x as string, 'base64url')], [-3, Buffer.from(jwk.y as string, 'base64url')],
    ]));
    const id = randomBytes(16);
    const resident = opts.authenticatorSelection?.residentKey === 'required' || !!opts.authenticatorSelection?.requireResidentKey;
    const cred: SoftCredential = { id, rpId, userHandle: opts.user.id, privateKey, counter: 0, resident };
    const idLen = Buffer.alloc(2);
    idLen.writeUInt16BE(id.length);
    const authData = Buffer.concat([
      sha(rpId), Buffer.from([this.flags(0x40 /* AT */)]), Buffer.alloc(4), Buffer.alloc(16) /* aaguid */, idLen, id, cose,
    ]);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: opts.challenge, origin: this.origin, crossOrigin: false }));
    this.credentials.push(cred);
    return {
      id: b64u(id), rawId: b64u(id), type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        attestationObject: b64u(cbor({ fmt: 'none', attStmt: {}, authData })),
        transports: ['usb'],
      },
      clientExtensionResults: resident ? { credProps: { rk: true } } : {},
      authenticatorAttachment: 'cross-platform',
    };
  }

  /** navigator.credentials.get: an assertion by the first allowed credential (or any resident one for the RP). */
  get(optionsJson: string | RequestOptions, pick?: SoftCredential): Record<string, unknown> {
    const opts = typeof optionsJson === 'string' ? (JSON.parse(optionsJson) as RequestOptions) : optionsJson;
    const rpId = opts.rpId as string;
    const allowed = opts.allowCredentials?.map((c) => c.id) ?? [];
    const cred = pick ?? this.credentials.find((c) => c.rpId === rpId
      && (allowed.length ? allowed.includes(b64u(c.id)) : c.resident));
    if (!cred) throw new Error('NotAllowedError: no credential for these options');
    cred.counter += this.o.counterStep ?? 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(cred.counter);
    const authData = Buffer.concat([sha(rpId), Buffer.from([this.flags(0)]), counter]);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: opts.challenge, origin: this.origin, crossOrigin: false }));
    const signature = sign('sha256', Buffer.concat([authData, sha(clientDataJSON)]), cred.privateKey);
    return {
      id: b64u(cred.id), rawId: b64u(cred.id), type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        ...(cred.userHandle && { userHandle: cred.userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'cross-platform',
    };
  }
}
