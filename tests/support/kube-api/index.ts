/**
 * A Kubernetes API server for tests, faithful enough for the real `kubectl` and `@kubernetes/client-node`:
 * discovery, OpenAPI v2/v3 from the registered CRDs, CRUD with merge/JSON/strategic patches, selectors, watch with
 * resourceVersion, bookmarks and 410 Gone, the status subresource, Tables for kubectl, bearer-token authentication,
 * impersonation with RBAC, `kubectl exec`/`attach`/`port-forward` over WebSocket and SPDY (connect.ts), and faults
 * (dropped watches, expired history, downtime). See README.md in this folder.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createServer as createHttpServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { generate } from 'selfsigned';
import { parseAllDocuments, parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { openapiV2, openapiV3GroupVersion, openapiV3Index, v3Key } from './openapi.js';
import { isObject, type JsonObject } from './patch.js';
import { ExecServer, planConnect } from './connect.js';
import { Kubelet } from './kubelet.js';
import { decodeKubeProtobuf } from './protobuf.js';
import { authorize, type Attributes } from './rbac.js';
import { CRD_GROUP } from './resources.js';
import { SelectorError, parseFieldSelector, parseLabelSelector } from './selectors.js';
import { fail, statusBody, Store, type Result, type Watcher } from './store.js';
import { toTable } from './table.js';
import { gvString, type ExecRecord, type Identity, type ImpersonationRecord, type KubeObject, type ResourceDef } from './types.js';

export type { ImpersonationRecord, KubeObject, ResourceDef } from './types.js';
export type { ExecRecord } from './types.js';

export interface KubeApiOptions {
  /** Load every `*.yaml`/`*.yml` in this folder at start (CRDs first), e.g. the repo's `crds/`. */
  crdsDir?: string;
  /**
   * Serve HTTPS with a self-signed certificate for 127.0.0.1/localhost (default). kubectl only sends credentials over
   * TLS (client-go drops the token for an http:// server), so plain HTTP (`tls: false`) suits client-node only.
   */
  tls?: boolean;
  /** Listen port; 0 (default) picks a free one. */
  port?: number;
  host?: string;
  /** The admin token (the console's service account); generated when omitted. */
  token?: string;
  /** More accepted tokens; identities without `admin` are authorised with RBAC for everything they do. */
  tokens?: Array<{ token: string } & Identity>;
  /** Watch events kept for resumes; older resourceVersions get 410 Gone. */
  historySize?: number;
  /** How often watches that asked for bookmarks get one. */
  bookmarkIntervalMs?: number;
  /**
   * A stand-in kubelet runs pods (kubelet.ts): Pending, then Running with each container's command, then Succeeded or
   * Failed as the command exits; off by default (pods are Running at once and run nothing).
   */
  podLifecycle?: boolean;
}

export interface KubeApi {
  url: string;
  port: number;
  /** PEM of the self-signed serving certificate (its own CA); undefined over plain HTTP. */
  ca?: string;
  token: string;
  /** Identity behind `token`. */
  adminUser: string;
  /** Every request that carried Impersonate-* headers, in order (tests may clear it with `.length = 0`). */
  impersonations: ImpersonationRecord[];
  /**
   * Write a kubeconfig for this server (token auth, the certificate as CA) and return its path. `insecure` uses
   * `insecure-skip-tls-verify: true` instead of the CA (always the case over plain HTTP, where client-node 1.4.0
   * needs it).
   */
  writeKubeconfig(path: string, opts?: { namespace?: string; token?: string; insecure?: boolean }): string;
  /** Accept another bearer token. */
  addToken(token: string, identity: Identity): void;
  get(group: string, version: string, plural: string, namespace: string | undefined, name: string): KubeObject | undefined;
  list(group: string, version: string, plural: string, namespace?: string, labelSelector?: string): KubeObject[];
  /** Create or replace an object (status included) as the admin would, emitting watch events; throws on a 4xx. */
  apply(obj: KubeObject): KubeObject;
  /** Delete as the admin would; false when it was not there. */
  remove(group: string, version: string, plural: string, namespace: string | undefined, name: string): boolean;
  /** Current global resourceVersion. */
  resourceVersion(): string;
  /** Number of open watch streams. */
  openWatches(): number;
  /** Every exec/attach session that got its WebSocket, in order (its exitCode is set when it ends). */
  execs: ExecRecord[];
  /** Exec/attach sessions open now. */
  openExecs(): number;
  /** What each open watch streams (group/plural, and namespace when it has one): for failure messages. */
  openWatchKeys(): string[];
  /** End every open watch stream now (cleanly, or by destroying the socket). */
  dropWatches(opts?: { abrupt?: boolean }): void;
  dropWatchesEvery(ms: number | null): void;
  /** Compaction: every resourceVersion handed out so far gets 410 Gone on watch; open watches are ended. */
  expireHistory(): void;
  /** Close the listener and every connection, refuse connections for `seconds`, then listen again on the same port
   *  with the same state. Resolves when the server is back. */
  goDown(seconds: number): Promise<void>;
  stop(): Promise<void>;
  /** Adds output to a container's log (`GET pods/{name}/log`), e.g. for pods that run nothing. */
  appendPodLog(namespace: string, pod: string, container: string, text: string): void;
}

const SERVER_VERSION = {
  major: '1',
  minor: '35',
  gitVersion: 'v1.35.0-kube-api-test',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.25.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const MAX_BODY = 10 * 1024 * 1024;

class HttpError extends Error {
  constructor(readonly result: Result) {
    super(String((result.body as JsonObject).message));
  }
}

function send(res: ServerResponse, result: Result) {
  const body = JSON.stringify(result.body);
  const headers: Record<string, string | string[]> = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-cache, private',
  };
  if (result.warnings?.length) headers.Warning = result.warnings.map((w) => `299 - "${w.replace(/"/g, "'")}"`);
  res.writeHead(result.code, headers);
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY) throw new HttpError(fail(413, 'RequestEntityTooLarge', 'request body too large'));
    chunks.push(chunk);
  }
  const type = (req.headers['content-type'] ?? 'application/json').toLowerCase();
  if (type.includes('protobuf')) {
    // kubectl's typed clients (kubectl create namespace|configmap|secret|...) send protobuf for built-in kinds
    try {
      return decodeKubeProtobuf(Buffer.concat(chunks));
    } catch (err) {
      throw new HttpError(fail(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - ${(err as Error).message}`));
    }
  }
  if (type.includes('cbor')) {
    throw new HttpError(fail(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml'));
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) return undefined;
  try {
    return type.includes('yaml') ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new HttpError(fail(400, 'BadRequest', `the request body could not be decoded: ${(err as Error).message}`));
  }
}

interface Route {
  group: string;
  version: string;
  namespace?: string;
  plural?: string;
  name?: string;
  subresource?: string;
}

/** `/api/v1/...` and `/apis/<group>/<version>/...` into their parts; undefined for anything else. */
function parseResourcePath(store: Store, segments: string[]): Route | undefined {
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 2) {
    group = '';
    version = segments[1];
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 3) {
    group = segments[1];
    version = segments[2];
    rest = segments.slice(3);
  } else return undefined;
  const route: Route = { group, version };
  const isPlural = (p: string | undefined) => p !== undefined && store.def(group, version, p) !== undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3 && isPlural(rest[2]) && store.def(group, version, rest[2])!.namespaced) {
    route.namespace = rest[1];
    rest = rest.slice(2);
  }
  [route.plural, route.name, route.subresource] = rest;
  if (rest.length > 3) return { ...route, plural: '\0invalid' };
  return route;
}

function verbOf(method: string, route: Route, watch: boolean, upgrade: boolean, def: ResourceDef): string {
  // connect subresources (pods/exec, pods/attach) need `create`, also for the WebSocket GET: what API servers do since
  // v1.35 (AuthorizePodWebsocketUpgradeCreatePermission), so `get` on pods/exec no longer opens a shell
  if (route.subresource && def.connect?.includes(route.subresource) && (method === 'POST' || (method === 'GET' && upgrade))) return 'create';
  switch (method) {
    case 'GET':
    case 'HEAD':
      return route.name ? 'get' : watch ? 'watch' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return route.name ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

function forbidden(who: Identity, a: Attributes, def?: ResourceDef): Result {
  const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const qualifiedRes = a.group ? `${a.resource}.${a.group}` : a.resource;
  const where = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  const subject = a.name ? `${qualifiedRes} "${a.name}" is forbidden` : `${qualifiedRes} is forbidden`;
  return fail(403, 'Forbidden', `${subject}: User "${who.user}" cannot ${a.verb} resource "${res}" in API group "${a.group}" ${where}`, {
    name: a.name,
    group: a.group,
    kind: def?.plural ?? a.resource,
  });
}

function discoveryResources(defs: ResourceDef[]) {
  const out: JsonObject[] = [];
  for (const d of defs) {
    const r: JsonObject = { name: d.plural, singularName: d.singular, namespaced: d.namespaced, kind: d.kind, verbs: d.verbs ?? ALL_VERBS };
    if (d.shortNames.length) r.shortNames = d.shortNames;
    if (d.categories.length) r.categories = d.categories;
    out.push(r);
    if (d.statusSubresource) {
      out.push({ name: `${d.plural}/status`, singularName: '', namespaced: d.namespaced, kind: d.kind, verbs: ['get', 'patch', 'update'] });
    }
    for (const sub of d.connect ?? []) {
      const kind = sub === 'exec' ? 'PodExecOptions' : sub === 'attach' ? 'PodAttachOptions' : 'PodPortForwardOptions';
      out.push({ name: `${d.plural}/${sub}`, singularName: '', namespaced: d.namespaced, kind, verbs: ['create', 'get'] });
    }
  }
  return out;
}

export async function startKubeApi(opts: KubeApiOptions = {}): Promise<KubeApi> {
  const store = new Store(opts.historySize);
  const host = opts.host ?? '127.0.0.1';
  const token = opts.token ?? randomBytes(24).toString('hex');
  const adminUser = 'system:serviceaccount:kube-system:kube-api-admin';
  const tokens = new Map<string, Identity>([[token, { user: adminUser, groups: ['system:serviceaccounts', 'system:authenticated'], admin: true }]]);
  for (const t of opts.tokens ?? []) tokens.set(t.token, { user: t.user, groups: t.groups ?? [], admin: t.admin });
  const impersonations: ImpersonationRecord[] = [];
  const bookmarkMs = opts.bookmarkIntervalMs ?? 1000;
  const sockets = new Set<Socket>();
  const execServer = new ExecServer();
  const kubelet = new Kubelet(store, opts.podLifecycle === true);
  const execs: ExecRecord[] = [];
  /** The connection and early bytes of each upgrade request, for the connect subresources. */
  const upgrades = new WeakMap<IncomingMessage, { socket: Duplex; head: Buffer }>();
  let dropTimer: NodeJS.Timeout | undefined;
  let down = false;
  let stopped = false;

  if (opts.crdsDir) await loadDir(store, opts.crdsDir);

  function authenticate(req: IncomingMessage): Identity | undefined {
    const auth = req.headers.authorization;
    const m = auth?.match(/^Bearer\s+(\S+)$/i);
    return m ? tokens.get(m[1]) : undefined;
  }

  /** Resolve Impersonate-* headers into the identity the request acts as (or a 403/400). */
  function impersonate(req: IncomingMessage, authn: Identity, url: URL): Identity | Result {
    const users = req.headersDistinct['impersonate-user'] ?? [];
    const groups = (req.headersDistinct['impersonate-group'] ?? []).filter((g) => g !== '');
    if (!users.length && !groups.length) return authn;
    if (!users.length) return fail(400, 'BadRequest', 'requested [Impersonate-Group] without impersonating a user');
    const user = users[0];
    const record: ImpersonationRecord = { method: req.method ?? 'GET', path: url.pathname, query: url.search, user, groups, authenticatedAs: authn.user };
    impersonations.push(record);
    (req as IncomingMessage & { impersonation?: ImpersonationRecord }).impersonation = record;
    const src = store.rbacSource();
    const checks: Attributes[] = [
      { verb: 'impersonate', group: '', resource: 'users', name: user },
      ...groups.map((g) => ({ verb: 'impersonate', group: '', resource: 'groups', name: g })),
    ];
    for (const a of checks) {
      if (!authorize(src, authn, a)) {
        return fail(403, 'Forbidden', `${a.resource} "${a.name}" is forbidden: User "${authn.user}" cannot impersonate resource "${a.resource}" in API group "" at the cluster scope`, {
          name: a.name,
          kind: a.resource,
        });
      }
    }
    // like the real authenticator: a service account user is also in its groups
    const sa = user.match(/^system:serviceaccount:([^:]+):[^:]+$/);
    const implied = sa ? ['system:serviceaccounts', `system:serviceaccounts:${sa[1]}`] : [];
    return { user, groups: [...new Set([...groups, ...implied, 'system:authenticated'])] };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    if (path === '/version' && method === 'GET') return send(res, { code: 200, body: SERVER_VERSION });
    if (['/healthz', '/readyz', '/livez'].includes(path)) {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      return res.end('ok');
    }
    const authn = authenticate(req);
    if (!authn) return send(res, fail(401, 'Unauthorized', 'Unauthorized'));
    const who = impersonate(req, authn, url);
    if ('code' in who) return send(res, who);
    const record = (req as IncomingMessage & { impersonation?: ImpersonationRecord }).impersonation;
    if (record) res.on('finish', () => (record.status = res.statusCode));

    const segments = path.split('/').filter(Boolean);
    // ---- non-resource endpoints: every authenticated user may read them (system:discovery)
    if (method === 'GET' && path === '/api') {
      return send(res, { code: 200, body: { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: req.headers.host ?? host }] } });
    }
    if (method === 'GET' && path === '/apis') return send(res, { code: 200, body: apiGroupList() });
    if (method === 'GET' && segments[0] === 'apis' && segments.length === 2) {
      const g = apiGroupList().groups.find((x) => x.name === segments[1]);
      return send(res, g ? { code: 200, body: { kind: 'APIGroup', apiVersion: 'v1', ...g } } : fail(404, 'NotFound', 'the server could not find the requested resource'));
    }
    if (method === 'GET' && path === '/openapi/v2') {
      if (!(req.headers.accept ?? '').includes('json') && (req.headers.accept ?? '').includes('protobuf')) {
        // we only speak JSON; kubectl carries on without the v2 document
        return send(res, fail(406, 'NotAcceptable', 'only application/json is served'));
      }
      return send(res, { code: 200, body: openapiV2([...store.defs.values()], SERVER_VERSION.gitVersion) });
    }
    if (method === 'GET' && path === '/openapi/v3') return send(res, { code: 200, body: openapiV3Index(groupVersions(), SERVER_VERSION.gitVersion) });
    if (method === 'GET' && segments[0] === 'openapi' && segments[1] === 'v3') {
      const key = segments.slice(2).join('/');
      const defs = groupVersions().get(key);
      return send(res, defs ? { code: 200, body: openapiV3GroupVersion(defs, SERVER_VERSION.gitVersion) } : fail(404, 'NotFound', 'the server could not find the requested resource'));
    }

    const route = parseResourcePath(store, segments);
    if (!route) return send(res, fail(404, 'NotFound', 'the server could not find the requested resource'));
    const defs = store.defsOf(route.group, route.version);
    if (!route.plural) {
      if (method !== 'GET' || !defs.length) return send(res, fail(404, 'NotFound', 'the server could not find the requested resource'));
      return send(res, { code: 200, body: { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gvString(route.group, route.version), resources: discoveryResources(defs) } });
    }
    const def = store.def(route.group, route.version, route.plural);
    const subOk = (sub: string) =>
      (sub === 'status' && def?.statusSubresource) || def?.connect?.includes(sub) || (sub === 'log' && def?.group === '' && def.plural === 'pods');
    if (!def || (route.subresource && !subOk(route.subresource))) {
      return send(res, fail(404, 'NotFound', 'the server could not find the requested resource'));
    }
    const watch = ['true', '1'].includes(url.searchParams.get('watch') ?? '');
    const attrs: Attributes = {
      verb: verbOf(method, route, watch, upgrades.has(req), def),
      group: route.group,
      resource: route.plural,
      subresource: route.subresource,
      namespace: def.namespaced ? route.namespace : undefined,
      name: route.name,
    };
    if (!authorize(store.rbacSource(), who, attrs)) return send(res, forbidden(who, attrs, def));

    const q = url.searchParams;
    if (def.group === 'authorization.k8s.io') {
      if (method !== 'POST' || route.name) return send(res, fail(405, 'MethodNotAllowed', 'access reviews can only be created'));
      return send(res, accessReview(def, await readBody(req), who));
    }
    if (route.subresource && def.connect?.includes(route.subresource)) {
      return connect(req, res, def, route.namespace, route.name, route.subresource, q, who, record);
    }
    if (route.subresource === 'log') {
      if (method !== 'GET' || !route.name) return send(res, fail(405, 'MethodNotAllowed', 'the log can only be read'));
      const pod = store.getRaw('', 'pods', route.namespace, route.name);
      if (!pod) return send(res, fail(404, 'NotFound', `pods "${route.name}" not found`, { name: route.name, kind: 'pods' }));
      const refused = kubelet.serve(res, pod, q);
      return refused ? send(res, refused) : undefined;
    }
    const writeOpts = { dryRun: q.getAll('dryRun').includes('All'), fieldValidation: q.get('fieldValidation') ?? undefined };
    const asTable = /as=Table/.test(req.headers.accept ?? '');
    const ns = def.namespaced ? route.namespace : undefined;
    try {
      if (route.name === undefined) {
        if (method === 'GET' && watch) return startWatch(req, res, def, ns, q, asTable);
        if (method === 'GET') return send(res, list(def, ns, q, asTable));
        if (method === 'POST') {
          if (def.namespaced && !ns) return send(res, fail(405, 'MethodNotAllowed', 'create needs a namespace in the path'));
          return send(res, store.create(def, ns, await readBody(req), writeOpts));
        }
        if (method === 'DELETE') {
          const items = store.select(def, ns, q.get('labelSelector'), q.get('fieldSelector'));
          for (const i of items) store.delete(def, i.obj.metadata.namespace, i.obj.metadata.name, undefined, writeOpts);
          // the answer lists what was deleted (as it was just before)
          const body = { kind: def.listKind, apiVersion: gvString(def.group, def.version), metadata: { resourceVersion: store.resourceVersion }, items: items.map((i) => i.obj) };
          return send(res, { code: 200, body });
        }
        return send(res, fail(405, 'MethodNotAllowed', `${method} is not supported on a collection`));
      }
      if (def.namespaced && !ns) return send(res, fail(404, 'NotFound', 'the server could not find the requested resource'));
      switch (method) {
        case 'GET': {
          const r = store.get(def, ns, route.name);
          if (r.code === 200 && asTable) return send(res, { code: 200, body: toTable(def, [r.body as KubeObject], store.resourceVersion, q.get('includeObject') ?? 'Metadata') });
          return send(res, r);
        }
        case 'PUT':
          return send(res, store.update(def, ns, route.name, await readBody(req), { ...writeOpts, subresource: route.subresource }));
        case 'PATCH': {
          const contentType = req.headers['content-type'] ?? '';
          const body = await readBody(req);
          if (contentType.includes('apply-patch') && !q.get('fieldManager')) {
            return send(res, fail(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch'));
          }
          return send(res, store.patch(def, ns, route.name, contentType, body, { ...writeOpts, subresource: route.subresource, force: q.get('force') === 'true' }));
        }
        case 'DELETE': {
          if (route.subresource) return send(res, fail(405, 'MethodNotAllowed', 'DELETE is not supported on a subresource'));
          const body = await readBody(req);
          return send(res, store.delete(def, ns, route.name, isObject(body as JsonObject) ? (body as JsonObject) : undefined, writeOpts));
        }
        default:
          return send(res, fail(405, 'MethodNotAllowed', `${method} is not supported`));
      }
    } catch (err) {
      if (err instanceof HttpError) return send(res, err.result);
      if (err instanceof SelectorError) return send(res, fail(400, 'BadRequest', err.message));
      throw err;
    }
  }

  /** pods/exec, attach, portforward (authorised already): connect.ts's checks, then the switch and the session. */
  function connect(
    req: IncomingMessage, res: ServerResponse, def: ResourceDef, ns: string | undefined, name: string | undefined, sub: string,
    q: URLSearchParams, who: Identity, record: ImpersonationRecord | undefined,
  ) {
    if (!ns || !name) return send(res, fail(404, 'NotFound', 'the server could not find the requested resource'));
    const got = store.get(def, ns, name);
    if (got.code !== 200) return send(res, got);
    const up = upgrades.get(req);
    const plan = planConnect(got.body as KubeObject, sub, q, req.headers, !!up);
    if ('fail' in plan) return send(res, fail(400, 'BadRequest', plan.fail));
    const session: ExecRecord = {
      kind: plan.kind, namespace: ns, pod: name, protocol: plan.protocol, user: who.user, groups: who.groups, resizes: [],
      ...(plan.kind === 'portforward'
        ? { container: '', command: [], stdin: false, tty: false, ports: [] }
        : { container: plan.container, command: plan.command, stdin: plan.stdin, tty: plan.tty }),
    };
    if (record) record.status = 101;
    res.detachSocket(up!.socket as Socket);
    execs.push(session);
    execServer.accept(req, up!.socket, up!.head, plan, session);
  }

  /** SelfSubjectAccessReview (about the caller) and SubjectAccessReview (about anyone), decided by the authoriser. */
  function accessReview(def: ResourceDef, body: unknown, who: Identity): Result {
    const spec = (isObject(body as JsonObject) ? ((body as JsonObject).spec as JsonObject | undefined) : undefined) ?? {};
    const ra = (spec.resourceAttributes ?? undefined) as JsonObject | undefined;
    const subject: Identity =
      def.plural === 'selfsubjectaccessreviews' ? who : { user: String(spec.user ?? ''), groups: ((spec.groups as string[]) ?? []).map(String) };
    let allowed: boolean;
    if (ra) {
      allowed = authorize(store.rbacSource(), subject, {
        verb: String(ra.verb ?? ''),
        group: String(ra.group ?? ''),
        resource: String(ra.resource ?? ''),
        subresource: ra.subresource ? String(ra.subresource) : undefined,
        namespace: ra.namespace ? String(ra.namespace) : undefined,
        name: ra.name ? String(ra.name) : undefined,
      });
    } else {
      allowed = true; // non-resource URLs: readable by every authenticated user here
    }
    return {
      code: 201,
      body: { apiVersion: 'authorization.k8s.io/v1', kind: def.kind, metadata: { creationTimestamp: null }, spec, status: { allowed, ...(allowed ? {} : { reason: 'no RBAC rule allows it' }) } },
    };
  }

  function list(def: ResourceDef, ns: string | undefined, q: URLSearchParams, asTable: boolean): Result {
    let items = store.select(def, ns, q.get('labelSelector'), q.get('fieldSelector'));
    const limit = Number(q.get('limit') ?? 0);
    const cont = q.get('continue');
    if (cont) {
      let after: string;
      try {
        after = JSON.parse(Buffer.from(cont, 'base64url').toString()).after;
      } catch {
        return fail(400, 'BadRequest', 'continue key is not valid');
      }
      items = items.filter((i) => i.key > after);
    }
    const metadata: JsonObject = { resourceVersion: store.resourceVersion };
    if (limit > 0 && items.length > limit) {
      metadata.continue = Buffer.from(JSON.stringify({ after: items[limit - 1].key })).toString('base64url');
      metadata.remainingItemCount = items.length - limit;
      items = items.slice(0, limit);
    }
    if (asTable) {
      const objs = items.map((i) => i.obj);
      const table = toTable(def, objs, store.resourceVersion, q.get('includeObject') ?? 'Metadata');
      table.metadata = metadata;
      return { code: 200, body: table };
    }
    // the page is serialised at once and kept by no one: a shallow copy stands in for the deep clone a read gets
    // (10,000 objects listed in pages were mostly structuredClone time)
    const gv = gvString(def.group, def.version);
    const objs = items.map((i) => ({ ...i.raw, apiVersion: gv, kind: def.kind }));
    return { code: 200, body: { kind: def.listKind, apiVersion: gv, metadata, items: objs } };
  }

  function startWatch(req: IncomingMessage, res: ServerResponse, def: ResourceDef, ns: string | undefined, q: URLSearchParams, asTable: boolean) {
    const labels = parseLabelSelector(q.get('labelSelector'));
    const fields = parseFieldSelector(q.get('fieldSelector'));
    const rvParam = q.get('resourceVersion') ?? '';
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    let closed = false;
    const timers: NodeJS.Timeout[] = [];
    const gv = gvString(def.group, def.version);
    const includeObject = q.get('includeObject') ?? 'Metadata';
    const w: Watcher = {
      key: `${def.group}/${def.plural}`,
      def,
      namespace: ns,
      matches: (o) => labels(o.metadata.labels ?? {}) && fields(o),
      send: (type, obj) => {
        if (closed) return;
        const object = { ...obj, apiVersion: gv, kind: def.kind };
        res.write(`${JSON.stringify({ type, object: asTable && type !== 'BOOKMARK' && type !== 'ERROR' ? toTable(def, [object], object.metadata.resourceVersion ?? '', includeObject) : object })}\n`);
      },
      close: (abrupt) => {
        if (closed) return;
        closed = true;
        timers.forEach(clearInterval);
        store.watchers.delete(w);
        if (abrupt) res.destroy();
        else res.end();
      },
    };
    req.on('close', () => w.close());
    res.on('close', () => w.close());
    const sendInitialEvents = q.get('sendInitialEvents') === 'true';
    if (sendInitialEvents || rvParam === '' || rvParam === '0') {
      // no version: the current state as ADDED events, then changes (what the real server does)
      for (const { obj } of store.select(def, ns, q.get('labelSelector'), q.get('fieldSelector'))) w.send('ADDED', obj);
      if (sendInitialEvents) {
        // streaming list (client-go's WatchListClient, e.g. kubectl wait): a bookmark marks the end of the state
        w.send('BOOKMARK', {
          apiVersion: gv,
          kind: def.kind,
          metadata: { name: '', resourceVersion: store.resourceVersion, annotations: { 'k8s.io/initial-events-end': 'true' } },
        });
      }
    } else {
      const rv = Number(rvParam);
      if (!Number.isFinite(rv)) {
        res.write(`${JSON.stringify({ type: 'ERROR', object: statusBody(400, 'BadRequest', `invalid resource version "${rvParam}"`) })}\n`);
        return w.close();
      }
      if (!store.replay(w, rv)) {
        res.write(`${JSON.stringify({ type: 'ERROR', object: statusBody(410, 'Expired', `too old resource version: ${rv} (${store.oldestResumableVersion})`) })}\n`);
        return w.close();
      }
    }
    store.watchers.add(w);
    if (q.get('allowWatchBookmarks') === 'true') {
      timers.push(setInterval(() => w.send('BOOKMARK', { apiVersion: gv, kind: def.kind, metadata: { name: '', resourceVersion: store.resourceVersion } }), bookmarkMs));
    }
    const timeout = Number(q.get('timeoutSeconds') ?? 0);
    if (timeout > 0) timers.push(setTimeout(() => w.close(), timeout * 1000));
  }

  function groupVersions(): Map<string, ResourceDef[]> {
    const m = new Map<string, ResourceDef[]>();
    for (const d of store.defs.values()) {
      const k = v3Key(d.group, d.version);
      m.set(k, [...(m.get(k) ?? []), d]);
    }
    return m;
  }

  function apiGroupList() {
    const groups = new Map<string, string[]>();
    for (const d of store.defs.values()) {
      if (!d.group) continue;
      const vs = groups.get(d.group) ?? [];
      if (!vs.includes(d.version)) vs.push(d.version);
      groups.set(d.group, vs);
    }
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [...groups.entries()].map(([name, versions]) => {
        // the CRD's storage version is preferred; otherwise the first served one
        const crdDef = store.defsOf(name).find((d) => d.crd);
        let preferred = versions[0];
        if (crdDef) {
          const crd = store.getRaw(CRD_GROUP, 'customresourcedefinitions', undefined, crdDef.crd!);
          const storage = ((crd?.spec as JsonObject | undefined)?.versions as JsonObject[] | undefined)?.find((v) => v.storage);
          if (storage && versions.includes(storage.name as string)) preferred = storage.name as string;
        }
        return {
          name,
          versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
          preferredVersion: { groupVersion: `${name}/${preferred}`, version: preferred },
        };
      }),
    };
  }

  const tlsOn = opts.tls ?? true;
  const cert = tlsOn ? await servingCert() : undefined;
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) send(res, fail(500, 'InternalError', `internal error: ${(err as Error).message}`));
      else res.destroy();
    });
  };
  const server: Server = cert ? createHttpsServer({ key: cert.key, cert: cert.cert }, onRequest) : createHttpServer(onRequest);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // Upgrade requests (exec, attach) take the same path as any other, with a response bound to the raw connection:
  // authentication, impersonation, RBAC and their refusals as HTTP answers, then connect() switches protocols.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    upgrades.set(req, { socket, head });
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    // an answer that is not a switch of protocols ends the connection (no HTTP parser reads it any more)
    res.on('finish', () => socket.end());
    onRequest(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `${cert ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const dropAll = (abrupt = false) => {
    for (const w of [...store.watchers]) w.close(abrupt);
  };

  const closeServer = () =>
    new Promise<void>((resolve) => {
      dropAll(true);
      execServer.closeAll();
      server.close(() => resolve());
      server.closeAllConnections();
      for (const s of sockets) s.destroy();
    });

  const defOrThrow = (group: string, version: string, plural: string) => {
    const d = store.def(group, version, plural);
    if (!d) throw new Error(`kube-api: no resource ${plural} in ${gvString(group, version)}`);
    return d;
  };

  return {
    url,
    port,
    ca: cert?.cert,
    token,
    adminUser,
    impersonations,
    writeKubeconfig(path, o = {}) {
      const cfg = {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'kube-api',
            cluster:
              cert && !o.insecure
                ? { server: url, 'certificate-authority-data': Buffer.from(cert.cert).toString('base64') }
                : { server: url, 'insecure-skip-tls-verify': true },
          },
        ],
        users: [{ name: 'kube-api-user', user: { token: o.token ?? token } }],
        contexts: [{ name: 'kube-api', context: { cluster: 'kube-api', user: 'kube-api-user', namespace: o.namespace ?? 'default' } }],
        'current-context': 'kube-api',
        preferences: {},
      };
      writeFileSync(path, stringifyYaml(cfg), { mode: 0o600 });
      return path;
    },
    addToken(t, identity) {
      tokens.set(t, identity);
    },
    get(group, version, plural, namespace, name) {
      const r = store.get(defOrThrow(group, version, plural), namespace, name);
      return r.code === 200 ? (r.body as KubeObject) : undefined;
    },
    list(group, version, plural, namespace, labelSelector) {
      return store.select(defOrThrow(group, version, plural), namespace, labelSelector).map((i) => i.obj);
    },
    apply(obj) {
      const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
      const def = store.defsOf(group, version).find((d) => d.kind === obj.kind);
      if (!def) throw new Error(`kube-api: no kind ${obj.kind} in ${obj.apiVersion}`);
      const ns = def.namespaced ? (obj.metadata.namespace ?? 'default') : undefined;
      const exists = store.get(def, ns, obj.metadata.name).code === 200;
      const r = exists
        ? store.update(def, ns, obj.metadata.name, { ...obj, metadata: { ...obj.metadata, resourceVersion: undefined } }, { rvChecked: true })
        : store.create(def, ns, obj);
      if (r.code >= 400) throw new Error(`kube-api apply: ${(r.body as JsonObject).message}`);
      // a status in the given object is written too (through the status subresource where there is one)
      if (def.statusSubresource && obj.status !== undefined) {
        const s = store.update(def, ns, obj.metadata.name, obj, { subresource: 'status', rvChecked: true });
        if (s.code >= 400) throw new Error(`kube-api apply status: ${(s.body as JsonObject).message}`);
        return s.body as KubeObject;
      }
      return r.body as KubeObject;
    },
    remove(group, version, plural, namespace, name) {
      return store.delete(defOrThrow(group, version, plural), namespace, name, undefined).code === 200;
    },
    resourceVersion: () => store.resourceVersion,
    openWatches: () => store.watchers.size,
    execs,
    openExecs: () => execServer.size,
    openWatchKeys: () => [...store.watchers].map((w) => (w.namespace ? `${w.key} in ${w.namespace}` : w.key)),
    dropWatches(o) {
      dropAll(o?.abrupt);
    },
    dropWatchesEvery(ms) {
      if (dropTimer) clearInterval(dropTimer);
      dropTimer = ms ? setInterval(() => dropAll(), ms) : undefined;
    },
    expireHistory() {
      store.expireHistory();
      dropAll();
    },
    async goDown(seconds) {
      if (down) throw new Error('kube-api is already down');
      down = true;
      await closeServer();
      await new Promise((r) => setTimeout(r, seconds * 1000));
      if (stopped) return; // stop() was called meanwhile: stay down
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      down = false;
    },
    appendPodLog(namespace, pod, container, text) {
      kubelet.append(namespace, pod, container, text);
    },
    async stop() {
      stopped = true;
      kubelet.closeAll();
      if (dropTimer) clearInterval(dropTimer);
      if (!down) await closeServer();
    },
  };
}

let certPromise: Promise<{ key: string; cert: string }> | undefined;

/** One self-signed serving certificate per process (it is its own CA), valid for 127.0.0.1, ::1 and localhost. */
function servingCert() {
  certPromise ??= generate([{ name: 'commonName', value: 'kube-api' }], {
    // ECDSA: a TLS handshake costs a fraction of RSA's, and client-node opens a new connection per request
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - 3_600_000),
    notAfterDate: new Date(Date.now() + 365 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  } as never).then((p) => ({ key: p.private, cert: p.cert }));
  return certPromise;
}

/** Create every object in the YAML files of a folder, CRDs first (the kinds they define may follow). */
async function loadDir(store: Store, dir: string) {
  const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
  const docs: KubeObject[] = [];
  for (const f of files) {
    for (const d of parseAllDocuments(await readFile(join(dir, f), 'utf8'))) {
      if (d.errors.length) throw new Error(`kube-api: ${f}: ${d.errors[0].message}`);
      const obj = d.toJS() as KubeObject | null;
      if (obj && typeof obj === 'object') docs.push(obj);
    }
  }
  const isCrd = (o: KubeObject) => o.kind === 'CustomResourceDefinition';
  for (const obj of [...docs.filter(isCrd), ...docs.filter((o) => !isCrd(o))]) {
    const [group, version] = obj.apiVersion?.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
    const def = store.defsOf(group, version).find((d) => d.kind === obj.kind);
    if (!def) throw new Error(`kube-api: ${obj.kind} (${obj.apiVersion}) is not served`);
    const r = store.create(def, def.namespaced ? (obj.metadata?.namespace ?? 'default') : undefined, obj);
    if (r.code >= 400) throw new Error(`kube-api: loading ${obj.kind} ${obj.metadata?.name}: ${(r.body as JsonObject).message}`);
  }
}
