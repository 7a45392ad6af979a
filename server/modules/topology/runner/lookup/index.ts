import type { KubeConfig } from '@kubernetes/client-node';
import type pg from 'pg';
import { checkTypeOf } from '../../../../lib/checks/index.js';
import { ConnectionResolver } from '../../../health/connections.js';
import type { ValueFromResolver } from '../../../../lib/value-from.js';
import { LookupError, type LookupContext, type LookupRunner } from '../types.js';
import { lookupConfigDB, lookupConfigProperty } from './config-db.js';
import { finishEntry, runCheckEntry, type EntryDeps } from './entry.js';
import { lookupKubernetes } from './kubernetes.js';
import { checkComponents, checkCount, isObj, resultValues } from './results.js';

export { MAX_LOOKUP_RESULTS } from './results.js';

type Obj = Record<string, unknown>;

export interface LookupDeps {
  db: pg.Pool;
  /** app.kube.valueFrom: Secrets and ConfigMaps named by a lookup's valueFrom (and its connection's). */
  valueFrom?: ValueFromResolver;
  /** The console's cluster connection now (app.kube.cluster?.kc); null when there is none. */
  kubeConfig?: () => KubeConfig | null | undefined;
}

/** Lookup types that are not check types: what they read, by block key. */
type OwnLookup = (path: string, entry: Obj, ctx: LookupContext, deps: LookupDeps) => Promise<unknown>;
const OWN_LOOKUPS: Record<string, OwnLookup> = {
  kubernetes: async (path, entry, ctx, deps) => {
    const t0 = performance.now();
    const items = await lookupKubernetes(path, entry, deps.kubeConfig?.() ?? null, ctx.signal);
    // CEL sees each as the reference's unstructured object too (`c.Object.metadata.name`)
    const results = items.map((o) => ({ ...o, Object: o }));
    return finishEntry('kubernetes', path, entry, ctx, { results, count: items.length }, Math.round(performance.now() - t0), () => items);
  },
  configDB: (path, entry, ctx) => lookupConfigDB(path, entry, ctx),
};

/**
 * The topology's LookupRunner: each entry of a `lookup` block (a canary spec) runs in turn, as a check (exec, http,
 * postgres, mysql, prometheus and every other check type, through the health runner) or as one of OWN_LOOKUPS
 * (kubernetes, configDB); what each yields (display.expr's value, display.javascript/template's text, else the
 * type's data) is parsed and concatenated. The first failing entry fails the lookup with a LookupError that names it
 * (`lookup.http.0: timed out after 30 s`). `{configLookup}` is a property's config lookup.
 */
export function createLookupRunner(deps: LookupDeps): LookupRunner {
  const entryDeps: EntryDeps = { connections: new ConnectionResolver({ db: deps.db, valueFrom: deps.valueFrom }), valueFrom: deps.valueFrom };
  return async (lookup, ctx) => {
    if (isObj(lookup.configLookup)) {
      return resultValues('configLookup', await lookupConfigProperty('configLookup', lookup.configLookup, ctx), 'property');
    }
    const purpose = ctx.purpose ?? 'components';
    const out: unknown[] = [];
    for (const [key, block] of Object.entries(lookup)) {
      // a canary spec's own fields (schedule, interval, owner...) are no lookups
      if (!Array.isArray(block) && !isObj(block)) continue;
      const own = Object.hasOwn(OWN_LOOKUPS, key) ? OWN_LOOKUPS[key] : undefined;
      if (!own && !checkTypeOf(key)) throw new LookupError(`lookup.${key}: unknown lookup type`);
      const entries = Array.isArray(block) ? block : [block];
      for (const [i, entry] of entries.entries()) {
        const path = `lookup.${key}.${i}`;
        if (!isObj(entry)) throw new LookupError(`${path}: an object`);
        const value = own ? await own(path, entry, ctx, deps) : await runCheckEntry(key, path, entry, ctx, entryDeps);
        const values = resultValues(path, value, purpose);
        checkCount(path, values.length);
        out.push(...(purpose === 'components' ? checkComponents(path, values) : values));
        checkCount('lookup', out.length);
      }
    }
    return out;
  };
}
