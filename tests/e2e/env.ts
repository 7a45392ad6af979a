/** What the e2e server is started with; tests sign in with these. */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 18931);
export const BASE_URL = `http://127.0.0.1:${E2E_PORT}`;
export const ADMIN = { email: 'admin@e2e.test', password: 'e2e-admin-password-1' };
/** The e2e server's system mail (SMTP_*): a spec that reads mail (recovery codes) listens here with smtp-server. */
export const E2E_SMTP_PORT = E2E_PORT + 10000;
