/**
 * HTTP to the upstream console's /api/upstream group, as the agent: Basic `token:<AGENT_TOKEN>` (the reference's
 * form) and `?agent_name=<AGENT_NAME>` when the agent has a name. Answers are never thrown for a status; a network
 * failure or a timeout is (the caller backs off either way).
 */
export interface UpstreamClientOptions {
  /** UPSTREAM_URL: the console's public URL (`/api/upstream/...` is appended; a URL already ending in /api is kept). */
  url: string;
  token: string;
  agentName?: string;
  /** Per request; default 30 s. */
  timeoutMs?: number;
}

export interface UpstreamAnswer {
  status: number;
  ok: boolean;
  text: string;
}

/** The upstream's base for /upstream paths. */
export function upstreamBase(url: string): string {
  const u = url.replace(/\/+$/, '');
  return /\/api$/.test(u) ? `${u}/upstream` : `${u}/api/upstream`;
}

/** A short, one-line form of an answer body for logs and status (never the request: it holds no secret either). */
export function briefBody(text: string): string {
  let t = text;
  try {
    const j = JSON.parse(text) as { message?: unknown; error?: unknown };
    t = [j.error, j.message].filter((x) => typeof x === 'string' && x).join(': ') || text;
  } catch {
    // not JSON: as is
  }
  return t.replace(/\s+/g, ' ').slice(0, 300);
}

export class UpstreamClient {
  readonly base: string;
  private readonly auth: string;

  constructor(private readonly opts: UpstreamClientOptions) {
    this.base = upstreamBase(opts.url);
    this.auth = `Basic ${Buffer.from(`token:${opts.token}`).toString('base64')}`;
  }

  /** `/api/upstream<path>?agent_name=…&<query>`. */
  urlOf(path: string, query: Record<string, string | number | undefined> = {}): string {
    const u = new URL(`${this.base}${path}`);
    if (this.opts.agentName) u.searchParams.set('agent_name', this.opts.agentName);
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') u.searchParams.set(k, String(v));
    return u.toString();
  }

  async request(method: 'GET' | 'POST' | 'DELETE', path: string, opts: { query?: Record<string, string | number | undefined>; body?: string } = {}): Promise<UpstreamAnswer> {
    const res = await fetch(this.urlOf(path, opts.query), {
      method,
      headers: {
        authorization: this.auth,
        accept: 'application/json',
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: opts.body,
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000),
    });
    const text = await res.text();
    return { status: res.status, ok: res.ok, text };
  }
}
