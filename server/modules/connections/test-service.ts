import type pg from 'pg';
import { z } from 'zod';
import { hydrateConnection, MASK, type ConnectionInput } from '../../lib/connection-hydrate.js';
import { ApiError, BadRequestError } from '../../lib/errors.js';
import { parseBody } from '../../lib/validation.js';
import type { ValueFromResolver } from '../../lib/value-from.js';
import { ConnectionTestError, testerFor, type Tester } from './testers/index.js';

/**
 * The connection test (POST /api/connection/test/{id}, and /api/connection/test with an unsaved form): load the row,
 * hydrate it (server/lib/connection-hydrate.ts), run its type's tester under a deadline, and say what failed with every
 * secret masked. At most `maxInFlight` tests run at once (spec 001 §9: 64); past that a 429.
 */

/** The form's fields, as Test on a new (or edited, unsaved) connection sends them; `id` resolves `***`. */
export const UnsavedConnection = z.object({
  id: z.uuid().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  type: z.string().trim().min(1, 'type is required'),
  url: z.string().nullish(),
  username: z.string().nullish(),
  password: z.string().nullish(),
  certificate: z.string().nullish(),
  insecure_tls: z.boolean().nullish(),
  properties: z.record(z.string(), z.unknown()).nullish(),
});
export type UnsavedConnection = z.infer<typeof UnsavedConnection>;

/** `payload.payload` is what the tester found (the reference nests it the same way). */
export interface TestOutcome {
  message: 'ok';
  payload: { payload: Record<string, unknown> };
}

export interface TestLimits {
  /** How long a tester has before it is aborted and the test fails (10 s). */
  timeoutMs: number;
  /** Tests running at once; one more is refused with 429 (64). */
  maxInFlight: number;
}

export interface ConnectionTestServiceDeps {
  db: Pick<pg.Pool, 'query'>;
  valueFrom?: ValueFromResolver;
  limits?: Partial<TestLimits>;
  /** The testers by type (the registry, unless a test swaps one). */
  testerFor?: (type: string) => Tester | undefined;
}

const SECRET_COLUMNS = ['username', 'password', 'certificate'] as const;

// the live row with its secrets: used only to hydrate, never returned
const SELECT_CONNECTION = `SELECT id, name, namespace, type, url, username, password, certificate, insecure_tls, properties, spec
  FROM connections WHERE id = $1 AND deleted_at IS NULL`;

/** How far behind the service's deadline the drivers' own timeouts are set (see TesterContext.timeoutMs). */
const DRIVER_BACKSTOP_MS = 1000;

export function createConnectionTestService(deps: ConnectionTestServiceDeps) {
  const limits: TestLimits = { timeoutMs: 10_000, maxInFlight: 64, ...deps.limits };
  const find = deps.testerFor ?? testerFor;
  const running = new Set<AbortController>();

  async function load(id: string): Promise<ConnectionInput | undefined> {
    if (!z.uuid().safeParse(id).success) return undefined;
    const { rows } = await deps.db.query<ConnectionInput>(SELECT_CONNECTION, [id]);
    return rows[0];
  }

  async function run(row: ConnectionInput): Promise<TestOutcome> {
    const tester = find(row.type);
    if (!tester) throw new ApiError(501, 'not_implemented', `testing ${row.type} connections is not supported`);
    if (running.size >= limits.maxInFlight) {
      throw new ApiError(429, 'too_many_requests', `too many connection tests running (at most ${limits.maxInFlight}); try again in a moment`);
    }
    const ac = new AbortController();
    running.add(ac);
    let secrets: string[] = [];
    let timer: NodeJS.Timeout | undefined;
    try {
      const c = await hydrateConnection(row, { valueFrom: deps.valueFrom });
      secrets = c.secrets;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          ac.abort();
          reject(new ConnectionTestError(`timed out after ${seconds(limits.timeoutMs)}: ${row.type} at ${target(c.url)} did not answer`));
        }, limits.timeoutMs);
      });
      const payload = await Promise.race([tester(c, { signal: ac.signal, timeoutMs: limits.timeoutMs + DRIVER_BACKSTOP_MS }), timedOut]);
      return { message: 'ok', payload: { payload } };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new BadRequestError(mask(message || 'testing the connection failed', [...secrets, ...rawSecrets(row)]), null, 'connection_test_failed');
    } finally {
      clearTimeout(timer);
      if (!ac.signal.aborted) ac.abort(); // a tester that resolved early leaves nothing running
      running.delete(ac);
    }
  }

  return {
    limits,
    /** Tests running now. */
    inFlight: () => running.size,

    /** Tests the saved connection `id`; 404 when there is none (or it was deleted). */
    async testSaved(id: string): Promise<TestOutcome> {
      const row = await load(id);
      if (!row) throw new ApiError(404, 'not_found', 'connection was not found');
      return run(row);
    },

    /** Tests an unsaved form; `***` in a secret field (or property) is the stored value of connection `id`. */
    async testUnsaved(body: unknown): Promise<TestOutcome> {
      const form = parseBody(UnsavedConnection, body);
      const masked = [
        ...SECRET_COLUMNS.filter((f) => form[f] === MASK),
        ...Object.entries(form.properties ?? {}).filter(([, v]) => v === MASK).map(([k]) => `properties.${k}`),
      ];
      const stored = masked.length && form.id ? await load(form.id) : undefined;
      if (masked.length && !stored) {
        throw new BadRequestError(
          form.id ? 'connection was not found (needed for the stored secrets sent as ***)' : `${masked[0]}: *** stands for a stored secret; send the value, or the id of the saved connection`,
          Object.fromEntries(masked.map((f) => [f, 'the stored value needs the id of a saved connection'])),
        );
      }
      const properties: Record<string, unknown> = { ...(form.properties ?? {}) };
      for (const [k, v] of Object.entries(properties)) if (v === MASK) properties[k] = stored?.properties?.[k] ?? null;
      const pick = (f: (typeof SECRET_COLUMNS)[number]) => (form[f] === MASK ? stored?.[f] ?? null : form[f] ?? null);
      return run({
        name: form.name || stored?.name || 'unsaved',
        namespace: form.namespace || stored?.namespace || 'default',
        type: form.type,
        url: form.url ?? null,
        username: pick('username'),
        password: pick('password'),
        certificate: pick('certificate'),
        insecure_tls: form.insecure_tls ?? false,
        properties,
      });
    },

    /** Aborts every running test (the server is closing). */
    close() {
      for (const ac of running) ac.abort();
    },
  };
}

export type ConnectionTestService = ReturnType<typeof createConnectionTestService>;

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** host[:port] of a url for the timeout message (never its credentials). */
function target(url: string): string {
  try {
    return new URL(url).host || url.split('?')[0];
  } catch {
    return url.replace(/^.*@/, '').split(/[/?]/)[0] || 'the target';
  }
}

/** Static secret columns as stored: masked too, in case hydration failed before it listed them. */
function rawSecrets(row: ConnectionInput): string[] {
  return [row.password, row.certificate].filter((v): v is string => typeof v === 'string' && v.length > 0 && !v.includes('://'));
}

/** `message` with every secret (and its url-encoded form) replaced by `***`, longest first. */
export function mask(message: string, secrets: string[]): string {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (!s) continue;
    forms.add(s);
    forms.add(encodeURIComponent(s));
  }
  let out = message;
  for (const s of [...forms].sort((a, b) => b.length - a.length)) out = out.split(s).join(MASK);
  return out;
}
