/**
 * npm run dev:oidc: a local OpenID Connect provider (oidc-provider 9, tests/support/oidc-provider.ts) on loopback with
 * demo users, for trying hosted mode (AUTH_MODE=oidc). It prints the environment to start the console with; its sign-in
 * page lists the demo users (no password). State is in memory: restarting it signs everyone out of the provider.
 *
 *   npm run dev:oidc                     (DEV_OIDC_PORT, default 5556; PUBLIC_URL of the console, default http://localhost:8080)
 */
import { startOidcProvider } from '../tests/support/oidc-provider.js';

const port = Number(process.env.DEV_OIDC_PORT ?? 5556);
const publicUrl = (process.env.PUBLIC_URL ?? 'http://localhost:8080').replace(/\/$/, '');

const provider = await startOidcProvider({
  port,
  clientId: 'console',
  clientSecret: 'dev-secret',
  redirectUris: [`${publicUrl}/api/auth/oidc/callback`],
  postLogoutRedirectUris: [`${publicUrl}/login`],
  accounts: {
    ada: {
      name: 'Ada Admin', given_name: 'Ada', family_name: 'Admin', email: 'ada@acme.example', email_verified: true,
      organization: { acme: { name: 'Acme' }, globex: { name: 'Globex' } }, groups: ['platform', 'sre-oncall'],
      realm_access: { roles: ['console-admin'] },
    },
    eddie: {
      name: 'Eddie Editor', email: 'eddie@acme.example', email_verified: true,
      organization: { acme: { name: 'Acme' } }, groups: ['sre-oncall'], realm_access: { roles: [] },
    },
    vera: {
      name: 'Vera Viewer', email: 'vera@globex.example', email_verified: true,
      organization: { globex: { name: 'Globex' } }, groups: [], realm_access: { roles: [] },
    },
    nora: { name: 'Nora Nobody', email: 'nora@example.com', email_verified: false, organization: [], groups: [] },
  },
});

const mapping = JSON.stringify([
  { claim: 'realm_access.roles', value: 'console-admin', role: 'admin' },
  { claim: 'groups', value: 'sre-*', role: 'editor' },
]);
console.log(`OpenID Connect provider for development at ${provider.issuer}
Demo users: ada (admin, Acme + Globex), eddie (editor, Acme), vera (viewer, Globex), nora (no organisation).
Start the console with:

AUTH_MODE=oidc PUBLIC_URL=${publicUrl} OIDC_ISSUER=${provider.issuer} OIDC_CLIENT_ID=console OIDC_CLIENT_SECRET=dev-secret \\
OIDC_DISPLAY_NAME='Dev SSO' OIDC_ROLE_MAPPING='${mapping}' npm start
`);

const stop = () => { void provider.stop().then(() => process.exit(0)); };
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
