import { createHash, randomBytes } from 'node:crypto';

/**
 * HTTP Digest authentication, client side (RFC 7616, which obsoletes RFC 2617): answer a `WWW-Authenticate:
 * Digest` challenge with an `Authorization: Digest` header.
 *
 * Written here rather than taken from npm: the maintained packages either wrap `fetch` (digest-fetch; the http
 * check talks node:http so it can read the peer certificate and stop reading huge bodies) or build MD5 only
 * (digest-header, www-authenticate). What a client needs is small: parse the challenge, hash with node:crypto.
 */

/** One challenge of a `WWW-Authenticate` field: its scheme (as sent) and its auth-params (names lower-cased). */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/**
 * Parses `WWW-Authenticate` field values (RFC 7235 §4.1): each value may hold several challenges
 * (`Basic realm="a", Digest realm="b", nonce="n"`), and a response may carry several fields. A token68
 * credential (`Negotiate abc==`) is not needed here and is read loosely; the Digest challenges come out right.
 */
export function parseChallenges(values: string[]): Challenge[] {
  const out: Challenge[] = [];
  for (const v of values) {
    let i = 0;
    let cur: Challenge | undefined;
    const skip = (chars: string) => {
      while (i < v.length && chars.includes(v[i])) i++;
    };
    while (i < v.length) {
      skip(' \t,');
      const start = i;
      while (i < v.length && !' \t,='.includes(v[i])) i++;
      const token = v.slice(start, i);
      if (!token) {
        i++;
        continue;
      }
      skip(' \t');
      if (v[i] === '=' && cur) {
        i++;
        skip(' \t');
        let value = '';
        if (v[i] === '"') {
          i++;
          while (i < v.length && v[i] !== '"') {
            if (v[i] === '\\' && i + 1 < v.length) i++;
            value += v[i++];
          }
          i++;
        } else {
          const s = i;
          while (i < v.length && !' \t,'.includes(v[i])) i++;
          value = v.slice(s, i);
        }
        cur.params[token.toLowerCase()] = value;
      } else {
        cur = { scheme: token, params: {} };
        out.push(cur);
      }
    }
  }
  return out;
}

/** RFC 7616 §6.1 algorithms (and their -sess variants) mapped to node:crypto names. */
const HASHES: Record<string, string> = { MD5: 'md5', 'SHA-256': 'sha256', 'SHA-512-256': 'sha512-256' };

function algorithmOf(c: Challenge): { hash: string; sess: boolean } | null {
  const name = (c.params.algorithm ?? 'MD5').toUpperCase();
  const sess = name.endsWith('-SESS');
  const hash = HASHES[sess ? name.slice(0, -5) : name];
  return hash ? { hash, sess } : null;
}

function qopOf(c: Challenge): 'auth' | 'auth-int' | null | undefined {
  if (c.params.qop === undefined) return null; // RFC 2069 style: no qop, no nc/cnonce
  const offered = c.params.qop.split(',').map((q) => q.trim().toLowerCase());
  if (offered.includes('auth')) return 'auth';
  if (offered.includes('auth-int')) return 'auth-int';
  return undefined;
}

/**
 * The Digest challenge to answer: the first one whose algorithm and qop this client supports (RFC 7616 §3.7: the
 * server lists its preferred challenge first). Throws with the reason when there are Digest challenges but none
 * is usable, returns null when the server asked for no Digest at all.
 */
export function pickDigestChallenge(challenges: Challenge[]): Challenge | null {
  const digest = challenges.filter((c) => c.scheme.toLowerCase() === 'digest');
  if (!digest.length) return null;
  const usable = digest.find((c) => c.params.nonce !== undefined && algorithmOf(c) && qopOf(c) !== undefined);
  if (usable) return usable;
  const offered = digest.map((c) => `algorithm=${c.params.algorithm ?? 'MD5'} qop=${c.params.qop ?? '(none)'}`).join('; ');
  throw new Error(`digest challenge not supported (${offered}); supported: MD5, SHA-256, SHA-512-256 (and -sess) with qop auth or auth-int`);
}

export interface DigestRequest {
  method: string;
  /** The request-target as sent: path and query. */
  uri: string;
  username: string;
  password: string;
  /** Needed for qop=auth-int only. */
  body?: string;
  /** Fixed in tests; random otherwise. */
  cnonce?: string;
  /** How many requests this nonce has answered so far, this one included (1 for a fresh challenge). */
  nc?: number;
}

const quote = (s: string) => `"${s.replace(/[\\"]/g, (m) => `\\${m}`)}"`;

/** The `Authorization` header value answering `challenge` (from pickDigestChallenge) for one request. */
export function digestAuthorization(challenge: Challenge, req: DigestRequest): string {
  const alg = algorithmOf(challenge);
  const qop = qopOf(challenge);
  if (!alg || qop === undefined) throw new Error('digest challenge not supported');
  const H = (s: string) => createHash(alg.hash).update(s, 'utf8').digest('hex');
  const { realm = '', nonce = '', opaque } = challenge.params;
  const cnonce = req.cnonce ?? randomBytes(16).toString('hex');
  const nc = (req.nc ?? 1).toString(16).padStart(8, '0');
  // userhash (RFC 7616 §3.4.4): the server asked for the username hashed with the realm
  const userhash = challenge.params.userhash?.toLowerCase() === 'true';
  const username = userhash ? H(`${req.username}:${realm}`) : req.username;

  let ha1 = H(`${req.username}:${realm}:${req.password}`);
  if (alg.sess) ha1 = H(`${ha1}:${nonce}:${cnonce}`);
  const ha2 = H(qop === 'auth-int' ? `${req.method}:${req.uri}:${H(req.body ?? '')}` : `${req.method}:${req.uri}`);
  const response = qop ? H(`${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${ha2}`) : H(`${ha1}:${nonce}:${ha2}`);

  const parts = [
    `username=${quote(username)}`,
    `realm=${quote(realm)}`,
    `nonce=${quote(nonce)}`,
    `uri=${quote(req.uri)}`,
    // echo the algorithm only when the server named one (an RFC 2069 server may not know the parameter)
    ...(challenge.params.algorithm !== undefined ? [`algorithm=${challenge.params.algorithm}`] : []),
    `response=${quote(response)}`,
    ...(opaque !== undefined ? [`opaque=${quote(opaque)}`] : []),
    ...(qop ? [`qop=${qop}`, `nc=${nc}`, `cnonce=${quote(cnonce)}`] : []),
    ...(userhash ? ['userhash=true'] : []),
  ];
  return `Digest ${parts.join(', ')}`;
}
