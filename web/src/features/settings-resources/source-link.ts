/** The local agent's id (reference schema): rows it owns are this console's own. */
export const LOCAL_AGENT = '00000000-0000-0000-0000-000000000000';

/** What the detail page says about where a row comes from, and whether the console may edit it. */
export type SourceLinkState =
  | { kind: 'editable' }
  | { kind: 'agent'; agentId: string }
  | { kind: 'link'; source: string; href: string | null }
  | { kind: 'localFile' }
  | { kind: 'other'; source: string };

/**
 * Spec 001 §4 "Source link rules": an agent set (not the all-zero id) means 'Linked to {agent}'; a source starting
 * with component or kubernetes shows a link; ConfigFile means 'Linked to local file'; UI or empty is editable. Any
 * other source is its owner's too (read-only, named as it is).
 */
export function sourceLinkOf(row: { source?: string | null; agent_id?: string | null }): SourceLinkState {
  if (row.agent_id && row.agent_id !== LOCAL_AGENT) return { kind: 'agent', agentId: row.agent_id };
  const source = row.source ?? '';
  if (!source || source === 'UI') return { kind: 'editable' };
  if (source === 'ConfigFile') return { kind: 'localFile' };
  // component/<id> links to the component that made it; kubernetes sources (KubernetesCRD/<uid>) name the CR
  if (/^component/i.test(source)) {
    const id = source.split('/')[1];
    return { kind: 'link', source, href: id ? `/topology/${encodeURIComponent(id)}` : null };
  }
  if (/^kubernetes/i.test(source)) return { kind: 'link', source, href: '/settings/kubernetes' };
  return { kind: 'other', source };
}

/** Whether the console edits the row itself (a CR-sourced one is edited through its CR by the server). */
export const editableHere = (s: SourceLinkState) => s.kind === 'editable' || (s.kind === 'link' && /^kubernetes/i.test(s.source));
