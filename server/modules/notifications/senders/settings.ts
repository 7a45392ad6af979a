/**
 * The senders' process-wide settings, set once by the notifications module from the config (tests may set them
 * directly): NOTIFICATION_ENDPOINTS (service → base URL replacing the public host), the SMTP_* system mail, and the
 * per-host concurrency limit.
 */
export interface SmtpSettings {
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  from?: string;
  fromName?: string;
  /** Auto, None, ExplicitTLS, ImplicitTLS */
  encryption?: string;
}

export interface SenderSettings {
  endpoints: Record<string, string>;
  smtp: SmtpSettings | null;
}

let current: SenderSettings = { endpoints: {}, smtp: null };

export function configureSenders(s: Partial<SenderSettings>): void {
  current = { ...current, ...s };
}

export function senderSettings(): SenderSettings {
  return current;
}

/** The settings a config gives (NOTIFICATION_ENDPOINTS, SMTP_*). */
export function senderSettingsOf(config: {
  NOTIFICATION_ENDPOINTS?: Record<string, string>;
  SMTP_HOST?: string;
  SMTP_PORT?: number;
  SMTP_USER?: string;
  SMTP_PASSWORD?: string;
  SMTP_FROM?: string;
  SMTP_ENCRYPTION?: string;
}): SenderSettings {
  return {
    endpoints: config.NOTIFICATION_ENDPOINTS ?? {},
    smtp: config.SMTP_HOST
      ? { host: config.SMTP_HOST, port: config.SMTP_PORT, username: config.SMTP_USER, password: config.SMTP_PASSWORD, from: config.SMTP_FROM, encryption: config.SMTP_ENCRYPTION }
      : null,
  };
}
