/**
 * Writes `crds/<plural>.<group>.yaml` and the identical `chart/crds/` copy (Helm installs CRDs from there) from
 * the kinds registry. Run after changing a kind's zod spec: `npx tsx scripts/gen-crds.ts`.
 * `tests/kube/kinds.test.ts` fails when a committed file differs from what this writes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderCrdYaml } from '../server/modules/kubernetes/crd-gen.js';
import { crdFile, KINDS } from '../server/modules/kubernetes/kinds.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const chartCrds = join(root, 'chart', 'crds');
mkdirSync(chartCrds, { recursive: true });
for (const kind of KINDS) {
  const file = crdFile(kind);
  mkdirSync(dirname(file), { recursive: true });
  const text = renderCrdYaml(kind);
  writeFileSync(file, text);
  writeFileSync(join(chartCrds, basename(file)), text);
  console.log(`wrote crds/${basename(file)} and chart/crds/${basename(file)}`);
}
