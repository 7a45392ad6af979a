/**
 * A Playbook CR's status as the reference's controller writes it: `observedGeneration` and a `Ready` condition, False
 * with the problems by path (`spec.actions[1].gitops: …`) when the spec did not validate (the console keeps the last
 * valid row), True once reconciled. The console's common fields ride along: `status` (Ready or Invalid, the printer
 * column), `persistedID` and `errorMessage`. Written by the kubernetes module's status writer on the leader.
 */

type Status = Record<string, unknown>;

interface Condition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** `spec.actions.1.gitops` (the reconciler's issue text) as `spec.actions[1].gitops`. */
export function bracketIndexes(text: string): string {
  return text.replace(/\.(\d+)(?=[.:\s]|$)/g, '[$1]');
}

/**
 * The status to write. `previous` is the object's current status: an unchanged Ready condition keeps its
 * lastTransitionTime, so a reconcile that changes nothing writes nothing.
 */
export function playbookCrStatus(
  outcome: { rowId: string | null; error: string | null }, generation: number | null, previous: unknown,
): Status {
  const prev = previous && typeof previous === 'object' ? (previous as Status) : {};
  const before = Array.isArray(prev.conditions) ? (prev.conditions as Condition[]).find((c) => c?.type === 'Ready') : undefined;
  const message = outcome.error ? bracketIndexes(outcome.error).slice(0, 2_000) : 'the playbook is reconciled';
  const cond: Condition = {
    type: 'Ready',
    status: outcome.error ? 'False' : 'True',
    reason: outcome.error ? 'InvalidSpec' : 'Reconciled',
    message,
    lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ...(generation === null ? {} : { observedGeneration: generation }),
  };
  if (before && before.status === cond.status && before.lastTransitionTime) cond.lastTransitionTime = before.lastTransitionTime;
  const others = Array.isArray(prev.conditions) ? (prev.conditions as Condition[]).filter((c) => c?.type !== 'Ready') : [];
  return {
    observedGeneration: generation,
    status: outcome.error ? 'Invalid' : 'Ready',
    message: outcome.error ? 'the spec did not validate' : null,
    errorMessage: outcome.error ? message : null,
    // an invalid CR keeps the row it last reconciled into (if any)
    ...(outcome.error ? {} : { persistedID: outcome.rowId }),
    conditions: [...others, cond],
  };
}
