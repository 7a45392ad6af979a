import { CanaryInput, CanaryPatch } from '../../contracts/health.js';
import { BadRequestError } from '../../lib/errors.js';
import { parseBody } from '../../lib/validation.js';
import type { RelationWriter } from '../db/writers.js';
import type { HealthService } from './service.js';

type Row = Record<string, unknown>;

/** The flat form of CanaryInput: what a settings form posts. */
const FlatCanary = CanaryInput.options[0];

/** Columns a body carries in the reference UI's canary form; labels null means none. */
const pick = (row: Row, keys: readonly string[]) =>
  Object.fromEntries(keys.filter((k) => row[k] !== undefined).map((k) => [k, k === 'labels' && row[k] === null ? {} : row[k]]));

/**
 * A row's source as a body gives it: only canaries made here can be made here, so anything but 'UI' (or leaving it
 * out) is refused rather than stored; an update may repeat the canary's own source.
 */
function refuseSource(given: unknown, current?: string | null): void {
  if (given === undefined || given === null || given === 'UI' || (current !== undefined && given === current)) return;
  throw new BadRequestError(`source: a canary written here has source 'UI'; '${String(given).slice(0, 60)}' cannot be set`, {
    source: "must be 'UI' (or left out)",
  });
}

/**
 * /api/db/canaries through the health service: the same validation, check reconciliation, scheduler reload and
 * (for CR-sourced canaries) cluster edits as /api/canary. `resource_version` in a PATCH body is the CR version the
 * caller saw, as /api/canary takes it.
 */
export function canaryWriter(health: HealthService): RelationWriter {
  return {
    insertColumns: ['name', 'namespace', 'labels', 'spec', 'source', 'created_by'],
    updateColumns: ['name', 'namespace', 'labels', 'spec', 'source', 'created_by'],
    preconditions: ['resource_version'],

    check(row) {
      refuseSource(row.source);
      health.checkCanary(parseBody(FlatCanary, pick(row, ['name', 'namespace', 'labels', 'spec'])));
    },

    async create(row, caller) {
      refuseSource(row.source);
      const input = parseBody(FlatCanary, pick(row, ['name', 'namespace', 'labels', 'spec']));
      const createdBy = typeof row.created_by === 'string' ? row.created_by : caller.id ?? null;
      return (await health.createCanary(input, createdBy)).id;
    },

    async update(id, patch, caller) {
      const current = await health.getCanary(id);
      refuseSource(patch.source, current.source);
      const change = parseBody(CanaryPatch, pick(patch, ['name', 'namespace', 'labels', 'spec']));
      const version = typeof patch.resource_version === 'string' ? patch.resource_version : undefined;
      // created_by and an unchanged source are accepted (the reference UI resends them) and change nothing
      if (!Object.keys(change).length) return;
      await health.patchCanary(id, change, { roles: caller.roles, version });
    },

    async remove(id, caller) {
      await health.deleteCanary(id, { roles: caller.roles });
    },
  };
}
