/**
 * Run the Kubernetes API test server on its own, for manual use and multi-process tests:
 *
 *   npx tsx tests/support/kube-api/cli.ts --port 0 --crds crds --kubeconfig out.yaml [--token T] [--namespace ns]
 *
 * Prints `KUBE_API_URL=<url>` (and `KUBECONFIG=<path>` when --kubeconfig is given) on stdout once listening, then
 * serves until SIGINT/SIGTERM.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startKubeApi } from './index.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    crds: { type: 'string' },
    kubeconfig: { type: 'string' },
    token: { type: 'string' },
    namespace: { type: 'string' },
  },
});

const api = await startKubeApi({
  port: Number(values.port),
  host: values.host,
  crdsDir: values.crds ? resolve(values.crds) : undefined,
  token: values.token,
});
console.log(`KUBE_API_URL=${api.url}`);
if (values.kubeconfig) {
  console.log(`KUBECONFIG=${api.writeKubeconfig(resolve(values.kubeconfig), { namespace: values.namespace })}`);
}
const stop = () => {
  void api.stop().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
