import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real OpenID Connect provider (oidc-provider 9) on loopback for tests and `npm run dev:oidc`, behind a small
 * proxy whose address is the issuer: tests rewrite the token endpoint's answers through it (a tampered id_token) and
 * stop it (provider down). Accounts are programmable: their claims can change between two sign-ins.
 */

export type AccountClaims = Record<string, unknown>;

export interface OidcTestProvider {
  /** The issuer (the proxy's URL), e.g. http://127.0.0.1:41234 */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** sub → claims (email, email_verified, name, given_name, family_name, groups, organization, realm_access…) */
  accounts: Map<string, AccountClaims>;
  /** The account the next login interaction signs in without a page; null shows a page to pick one (dev). */
  loginAs: string | null;
  /** When set, every token endpoint answer (parsed JSON) passes through this before reaching the client. */
  rewriteToken: ((body: Record<string, unknown>) => Record<string, unknown>) | null;
  /** Closes the proxy and the provider: the issuer refuses connections afterwards. */
  stop(): Promise<void>;
}

export interface StartOptions {
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  accounts?: Record<string, AccountClaims>;
  /** The proxy's (issuer's) port; 0 picks a free one. */
  port?: number;
  clientId?: string;
  clientSecret?: string;
}

const CUSTOM_CLAIMS = ['groups', 'organization', 'realm_access', 'department'];

export async function startOidcProvider(opts: StartOptions): Promise<OidcTestProvider> {
  const upstream = http.createServer();
  await listen(upstream, 0);
  const proxy = http.createServer();
  await listen(proxy, opts.port ?? 0);
  const issuer = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const upstreamPort = (upstream.address() as AddressInfo).port;
  const clientId = opts.clientId ?? 'console';
  const clientSecret = opts.clientSecret ?? randomBytes(16).toString('hex');
  const accounts = new Map(Object.entries(opts.accounts ?? {}));
  const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId, client_secret: clientSecret, redirect_uris: opts.redirectUris,
      post_logout_redirect_uris: opts.postLogoutRedirectUris ?? [], token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code'], response_types: ['code'],
    }],
    jwks: { keys: [{ ...jwk, kid: 'test', use: 'sig', alg: 'RS256' } as never] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    claims: {
      openid: ['sub', ...CUSTOM_CLAIMS],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name', 'preferred_username'],
    },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, sub) {
      const claims = accounts.get(sub);
      if (!claims) return undefined;
      return { accountId: sub, claims: async () => ({ ...accounts.get(sub), sub }) };
    },
    // first-party client: consent is implied
    async loadExistingGrant(ctx) {
      const oidcCtx = ctx.oidc;
      const grantId = oidcCtx.result?.consent?.grantId || oidcCtx.session!.grantIdFor(oidcCtx.client!.clientId);
      if (grantId) {
        const found = await oidcCtx.provider.Grant.find(grantId);
        if (found) return found;
      }
      const grant = new oidcCtx.provider.Grant({ clientId: oidcCtx.client!.clientId, accountId: oidcCtx.session!.accountId! });
      grant.addOIDCScope('openid email profile');
      grant.addOIDCClaims(['sub', 'email', 'email_verified', 'name', 'given_name', 'family_name', ...CUSTOM_CLAIMS]);
      await grant.save();
      return grant;
    },
  });
  const handle = provider.callback();

  const state: OidcTestProvider = {
    issuer, clientId, clientSecret, accounts, loginAs: null, rewriteToken: null,
    async stop() {
      await Promise.all([close(proxy), close(upstream)]);
    },
  };

  upstream.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      interaction(provider, state, req, res).catch((err) => {
        res.statusCode = 500;
        res.end(String(err));
      });
      return;
    }
    handle(req, res);
  });

  proxy.on('request', (req, res) => {
    const up = http.request({ host: '127.0.0.1', port: upstreamPort, path: req.url, method: req.method, headers: req.headers }, (ur) => {
      const rewrite = state.rewriteToken;
      if (!rewrite || req.method !== 'POST' || !req.url?.startsWith('/token')) {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      ur.on('data', (c: Buffer) => chunks.push(c));
      ur.on('end', () => {
        let body = Buffer.concat(chunks).toString('utf8');
        try {
          body = JSON.stringify(rewrite(JSON.parse(body)));
        } catch { /* not JSON: passed on as is */ }
        const headers = { ...ur.headers, 'content-length': String(Buffer.byteLength(body)) };
        res.writeHead(ur.statusCode ?? 502, headers);
        res.end(body);
      });
    });
    up.on('error', () => { res.statusCode = 502; res.end(); });
    req.pipe(up);
  });

  return state;
}

/** The login prompt: the programmed account, else a page listing the accounts (dev); consent is implied. */
async function interaction(provider: Provider, state: OidcTestProvider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name !== 'login') {
    await provider.interactionFinished(req, res, {}, { mergeWithLastSubmission: true });
    return;
  }
  let accountId = state.loginAs;
  if (!accountId && req.method === 'POST') {
    const body = await new Promise<string>((resolve) => {
      let s = '';
      req.on('data', (c) => { s += c; });
      req.on('end', () => resolve(s));
    });
    accountId = new URLSearchParams(body).get('account');
  }
  if (!accountId || !state.accounts.has(accountId)) {
    const esc = (v: string) => v.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
    const buttons = [...state.accounts.entries()].map(([sub, c]) =>
      `<button name="account" value="${esc(sub)}">${esc(String(c.name ?? sub))} &lt;${esc(String(c.email ?? ''))}&gt;</button>`).join('<br>');
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html lang="en"><head><title>Sign in</title></head><body><main><h1>Test provider: sign in as</h1>
<form method="post" action="/interaction/${esc(details.uid)}">${buttons}</form></main></body></html>`);
    return;
  }
  await provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
}

function listen(server: http.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

function close(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A tiny cookie jar for walking the provider's redirects with fetch (cookies by name; paths ignored). */
export class CookieJar {
  private cookies = new Map<string, string>();

  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      if (!value || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * Follows the provider's redirects from an authorization URL until it sends the browser back to `callbackPrefix`;
 * returns that URL (with code and state, or error).
 */
export async function walkProvider(authUrl: string, callbackPrefix: string, jar: CookieJar): Promise<string> {
  let url = authUrl;
  for (let i = 0; i < 10; i++) {
    if (url.startsWith(callbackPrefix)) return url;
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.store(res);
    const location = res.headers.get('location');
    if (!location) throw new Error(`provider answered ${res.status} without a redirect at ${url}: ${(await res.text()).slice(0, 300)}`);
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects at the provider');
}
