import * as oidc from 'openid-client';
import type { Config } from '../../../config.js';
import type { Claims } from './claims.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
/** Each call to the provider gives up after this long: a hanging provider must not hold a sign-in for minutes. */
const PROVIDER_TIMEOUT_MS = 10_000;
/** The reachability probe before sending a browser to the provider. */
const REACHABLE_TIMEOUT_MS = 3_000;

/** What the routes need of the provider, built from OIDC_* (discovery happens on first use and is cached). */
export interface OidcClient {
  readonly displayName: string;
  readonly redirectUri: string;
  /** Whether the provider answers its discovery document now (asked at each sign-in start: a browser sent to a dead
   * provider would see a connection error instead of our message). */
  reachable(): Promise<boolean>;
  authorizationUrl(p: { state: string; nonce: string; codeChallenge: string; promptNone: boolean }): Promise<URL>;
  /** Exchanges the code (state, nonce, PKCE and the id_token checked) and merges the id_token and userinfo claims. */
  finish(currentUrl: URL, checks: { state: string; nonce: string; codeVerifier: string }): Promise<{ claims: Claims; idToken: string | undefined }>;
  /** The provider's end_session_endpoint URL for this id_token, when it offers one. */
  logoutUrl(idToken: string | undefined, postLogoutRedirect: string): Promise<string | null>;
}

/** Refuses (at start) what would make hosted mode unsafe or unusable; returns the issuer URL. */
export function checkOidcConfig(config: Config): URL {
  const missing = (['OIDC_ISSUER', 'OIDC_CLIENT_ID'] as const).filter((k) => !config[k]);
  if (missing.length) throw new Error(`AUTH_MODE=oidc needs ${missing.join(' and ')}`);
  const issuer = new URL(config.OIDC_ISSUER!);
  if (issuer.protocol === 'http:' && !LOOPBACK.has(issuer.hostname)) {
    throw new Error(`OIDC_ISSUER ${issuer.origin} uses plain http: only loopback issuers (localhost, 127.0.0.1, ::1) may; use https`);
  }
  if (issuer.protocol !== 'http:' && issuer.protocol !== 'https:') throw new Error('OIDC_ISSUER must be an http(s) URL');
  return issuer;
}

export function createOidcClient(config: Config): OidcClient {
  const issuer = checkOidcConfig(config);
  const redirectUri = `${config.publicUrl}/api/auth/oidc/callback`;
  const insecure = issuer.protocol === 'http:';
  let discovered: Promise<oidc.Configuration> | undefined;

  const timedFetch: oidc.CustomFetch = (url, options) =>
    fetch(url, { ...options, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) } as RequestInit);

  function configuration(): Promise<oidc.Configuration> {
    discovered ??= (async () => {
      // the authentication method is chosen once discovery tells what the provider supports
      const meta = await oidc.discovery(issuer, config.OIDC_CLIENT_ID!, undefined, oidc.None(), {
        [oidc.customFetch]: timedFetch, execute: insecure ? [oidc.allowInsecureRequests] : [],
      });
      const server = meta.serverMetadata();
      const secret = config.OIDC_CLIENT_SECRET;
      const methods = server.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
      const auth = !secret ? oidc.None()
        : methods.includes('client_secret_basic') ? oidc.ClientSecretBasic(secret) : oidc.ClientSecretPost(secret);
      const c = new oidc.Configuration(server, config.OIDC_CLIENT_ID!, secret, auth);
      c[oidc.customFetch] = timedFetch;
      if (insecure) oidc.allowInsecureRequests(c);
      return c;
    })();
    // a provider down at the first sign-in is asked again at the next one
    discovered.catch(() => { discovered = undefined; });
    return discovered;
  }

  return {
    displayName: config.OIDC_DISPLAY_NAME,
    redirectUri,
    async reachable() {
      const base = issuer.href.replace(/\/$/, '');
      try {
        const res = await fetch(`${base}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(REACHABLE_TIMEOUT_MS) });
        await res.body?.cancel();
        return res.ok;
      } catch {
        return false;
      }
    },
    async authorizationUrl({ state, nonce, codeChallenge, promptNone }) {
      const params: Record<string, string> = {
        redirect_uri: redirectUri, scope: config.OIDC_SCOPES, state, nonce,
        code_challenge: codeChallenge, code_challenge_method: 'S256', response_type: 'code',
      };
      if (promptNone) params.prompt = 'none';
      return oidc.buildAuthorizationUrl(await configuration(), params);
    },
    async finish(currentUrl, checks) {
      const c = await configuration();
      const tokens = await oidc.authorizationCodeGrant(c, currentUrl, {
        pkceCodeVerifier: checks.codeVerifier, expectedState: checks.state, expectedNonce: checks.nonce, idTokenExpected: true,
      }, { redirect_uri: redirectUri });
      const idClaims = tokens.claims() as Claims;
      let claims: Claims = { ...idClaims };
      if (c.serverMetadata().userinfo_endpoint) {
        // userinfo completes the id_token (many providers put profile, email and groups only there); sub must match
        const info = await oidc.fetchUserInfo(c, tokens.access_token, idClaims.sub as string);
        claims = { ...idClaims, ...profileClaims(info) };
      }
      return { claims, idToken: tokens.id_token };
    },
    async logoutUrl(idToken, postLogoutRedirect) {
      const c = await configuration();
      if (!c.serverMetadata().end_session_endpoint) return null;
      const params: Record<string, string> = { post_logout_redirect_uri: postLogoutRedirect, client_id: config.OIDC_CLIENT_ID! };
      if (idToken) params.id_token_hint = idToken;
      return oidc.buildEndSessionUrl(c, params).href;
    },
  };
}

const IDENTITY_CLAIMS = new Set(['sub', 'iss', 'aud', 'exp', 'iat', 'nbf', 'nonce', 'auth_time', 'azp', 'at_hash', 'sid', 'acr', 'amr']);

/** Userinfo's claims but the token's own: fetched just now, its profile fields win over the id_token's. */
function profileClaims(info: Claims): Claims {
  return Object.fromEntries(Object.entries(info).filter(([k]) => !IDENTITY_CLAIMS.has(k)));
}
