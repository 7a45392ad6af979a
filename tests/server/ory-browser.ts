import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

/**
 * A browser over `inject`: keeps cookies between calls (the session and the flows' CSRF cookie), as Ory's SDK in a
 * page does, so tests walk the /api/.ory flows as a user would.
 */
export class OryBrowser {
  cookies = new Map<string, string>();
  constructor(private app: FastifyInstance) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(opts: InjectOptions & { json?: boolean }): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { ...(opts.headers as Record<string, string>) };
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader;
    if (opts.json !== false && !headers.accept) headers.accept = 'application/json';
    const res = await this.app.inject({ ...opts, headers });
    for (const c of res.cookies) {
      if (c.value === '' || (c.expires && c.expires.getTime() < Date.now()) || c.maxAge === 0) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }

  get(url: string, headers: Record<string, string> = {}) {
    return this.request({ method: 'GET', url, headers });
  }

  /** Starts a flow (JSON) and returns it. */
  async flow(type: string, query = ''): Promise<Flow> {
    const res = await this.get(`/api/.ory/self-service/${type}/browser${query ? `?${query}` : ''}`);
    if (res.statusCode !== 200) throw new Error(`flow ${type}: ${res.statusCode} ${res.body}`);
    return res.json();
  }

  /** Posts to a flow with its csrf_token (JSON). */
  submit(flow: Flow, body: Record<string, unknown>, opts: { csrf?: string } = {}) {
    return this.request({
      method: 'POST', url: `/api/.ory/self-service/${flowType(flow)}?flow=${flow.id}`,
      payload: { csrf_token: opts.csrf ?? csrfOf(flow), ...body },
    });
  }

  /** Posts a plain HTML form (no JSON accepted): answers are 303s. */
  form(flow: Flow, body: Record<string, string>) {
    return this.request({
      method: 'POST', url: `/api/.ory/self-service/${flowType(flow)}?flow=${flow.id}`, json: false,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      payload: new URLSearchParams({ csrf_token: csrfOf(flow), ...body }).toString(),
    });
  }

  csrfHeader(): Record<string, string> {
    return {};
  }

  /** Signs in with the password through a login flow; returns the answer. */
  async signIn(identifier: string, password: string, query = '') {
    const flow = await this.flow('login', query);
    return this.submit(flow, { method: 'password', identifier, password });
  }
}

export interface Flow {
  id: string;
  expires_at: string;
  state?: string;
  requested_aal?: string;
  refresh?: boolean;
  return_to?: string;
  ui: { action: string; nodes: Node[]; messages?: { id: number; text: string; type: string }[] };
}
interface Node {
  type: string;
  group: string;
  attributes: { name?: string; value?: unknown; type?: string; node_type: string; href?: string };
  messages: { id: number; text: string }[];
}

export const flowType = (flow: Flow) => /self-service\/([a-z]+)\?/.exec(flow.ui.action)![1];
export const csrfOf = (flow: Flow) => String(flow.ui.nodes.find((n) => n.attributes.name === 'csrf_token')!.attributes.value);
export const nodeNames = (flow: Flow) => flow.ui.nodes.map((n) => n.attributes.name ?? n.attributes.node_type);
export const nodeOf = (flow: Flow, name: string) => flow.ui.nodes.find((n) => n.attributes.name === name);
