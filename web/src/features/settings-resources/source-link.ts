/** The local agent's id (reference schema): rows it owns are this console's own. */
export const LOCAL_AGENT = '00000000-0000-0000-0000-000000000000';

/** What the detail page says about where a row comes from, and whether the console may edit it. */
export type SourceLinkState =
  | { kind: 'editable' }
  | { kind: 'agent'; agentId: string }
  | { kind: 'link'; source: string; href: string | null }
  | { kind: 'gitops'; source: string; link: string }
  | { kind: 'localFile' }
  | { kind: 'other'; source: string };

/**
 * Who manages a custom resource through GitOps, from the labels Flux and Argo CD stamp on what they apply (the row
 * keeps its CR's labels): what follows "Linked to", or null. The server's rule (kubernetes/objects.ts `gitOpsOf`) also
 * reads Argo's tracking-id annotation, which rows do not keep: such a CR is refused at save instead.
 */
export function gitOpsLinkOf(labels: Record<string, unknown> | null | undefined): string | null {
  const l = labels ?? {};
  const at = (k: string) => (typeof l[k] === 'string' && l[k] ? (l[k] as string) : undefined);
  for (const [tool, what] of [['kustomize', 'Flux kustomization'], ['helm', 'Flux HelmRelease']] as const) {
    const name = at(`${tool}.toolkit.fluxcd.io/name`);
    if (name) return `${what} ${[at(`${tool}.toolkit.fluxcd.io/namespace`), name].filter(Boolean).join('/')}`;
  }
  const argo = at('argocd.argoproj.io/instance');
  if (argo) return `Argo CD application ${argo}`;
  const keys = Object.keys(l);
  if (keys.some((k) => /(^|\.)toolkit\.fluxcd\.io\//.test(k))) return 'Flux';
  if (keys.some((k) => k.startsWith('argocd.argoproj.io/'))) return 'Argo CD';
  return null;
}

/**
 * Spec 001 §4 "Source link rules": an agent set (not the all-zero id) means 'Linked to {agent}'; a source starting
 * with component or kubernetes shows a link (a kubernetes one that GitOps manages: 'Linked to {its Flux or Argo CD
 * owner}', read-only); ConfigFile means 'Linked to local file'; UI or empty is editable. Any other source is its
 * owner's too (read-only, named as it is).
 */
export function sourceLinkOf(row: { source?: string | null; agent_id?: string | null; labels?: Record<string, unknown> | null }): SourceLinkState {
  if (row.agent_id && row.agent_id !== LOCAL_AGENT) return { kind: 'agent', agentId: row.agent_id };
  const source = row.source ?? '';
  if (!source || source === 'UI') return { kind: 'editable' };
  if (source === 'ConfigFile') return { kind: 'localFile' };
  // component/<id> links to the component that made it; kubernetes sources (KubernetesCRD/<uid>) name the CR
  if (/^component/i.test(source)) {
    const id = source.split('/')[1];
    return { kind: 'link', source, href: id ? `/topology/${encodeURIComponent(id)}` : null };
  }
  if (/^kubernetes/i.test(source)) {
    // a CR that Flux or Argo CD applies is read-only here: the server refuses its edits ('Linked to …')
    const gitops = gitOpsLinkOf(row.labels);
    return gitops ? { kind: 'gitops', source, link: gitops } : { kind: 'link', source, href: '/settings/kubernetes' };
  }
  return { kind: 'other', source };
}

/** Whether the console edits the row itself (a CR-sourced one is edited through its CR by the server). */
export const editableHere = (s: SourceLinkState) => s.kind === 'editable' || (s.kind === 'link' && /^kubernetes/i.test(s.source));
