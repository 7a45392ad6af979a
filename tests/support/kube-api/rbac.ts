/**
 * A small RBAC authoriser over the ClusterRoles, ClusterRoleBindings, Roles and RoleBindings stored in the server:
 * rules with apiGroups, resources (`*`, `resource/subresource`, `*` followed by `/subresource`), verbs (`*`) and resourceNames.
 * Aggregated ClusterRoles and nonResourceURLs rules are not evaluated (non-resource GETs such as discovery are allowed
 * to every authenticated user, as the default `system:discovery` binding does on a real cluster).
 */
import type { Identity, KubeObject } from './types.js';

export interface Attributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
}

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

function subjectMatches(s: Subject, who: Identity, bindingNamespace?: string): boolean {
  switch (s.kind) {
    case 'User':
      return s.name === who.user;
    case 'Group':
      return who.groups.includes(s.name);
    case 'ServiceAccount':
      return who.user === `system:serviceaccount:${s.namespace ?? bindingNamespace}:${s.name}`;
    default:
      return false;
  }
}

function ruleAllows(rule: Rule, a: Attributes): boolean {
  const verbs = rule.verbs ?? [];
  if (!verbs.includes('*') && !verbs.includes(a.verb)) return false;
  const groups = rule.apiGroups ?? [];
  if (!groups.includes('*') && !groups.includes(a.group)) return false;
  const full = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const resources = rule.resources ?? [];
  const resourceOk = resources.some(
    (r) => r === '*' || r === full || (a.subresource !== undefined && r === `*/${a.subresource}`),
  );
  if (!resourceOk) return false;
  if (rule.resourceNames && rule.resourceNames.length > 0) {
    return a.name !== undefined && rule.resourceNames.includes(a.name);
  }
  return true;
}

/** Everything the authoriser needs, read from the store at decision time (so changes apply at once). */
export interface RbacSource {
  list(group: string, plural: string): KubeObject[];
  get(group: string, plural: string, namespace: string | undefined, name: string): KubeObject | undefined;
}

export function authorize(src: RbacSource, who: Identity, a: Attributes): boolean {
  if (who.admin) return true;
  const G = 'rbac.authorization.k8s.io';
  const rulesOf = (kind: string, name: string, namespace?: string): Rule[] => {
    const role =
      kind === 'ClusterRole' ? src.get(G, 'clusterroles', undefined, name) : src.get(G, 'roles', namespace, name);
    return ((role?.rules as Rule[] | undefined) ?? []).filter(Boolean);
  };
  for (const b of src.list(G, 'clusterrolebindings')) {
    const subjects = (b.subjects as Subject[] | undefined) ?? [];
    if (!subjects.some((s) => subjectMatches(s, who))) continue;
    const ref = b.roleRef as { kind: string; name: string } | undefined;
    if (ref?.kind !== 'ClusterRole') continue;
    if (rulesOf('ClusterRole', ref.name).some((r) => ruleAllows(r, a))) return true;
  }
  if (a.namespace) {
    for (const b of src.list(G, 'rolebindings')) {
      if (b.metadata.namespace !== a.namespace) continue;
      const subjects = (b.subjects as Subject[] | undefined) ?? [];
      if (!subjects.some((s) => subjectMatches(s, who, b.metadata.namespace))) continue;
      const ref = b.roleRef as { kind: string; name: string } | undefined;
      if (!ref) continue;
      if (rulesOf(ref.kind, ref.name, a.namespace).some((r) => ruleAllows(r, a))) return true;
    }
  }
  return false;
}
