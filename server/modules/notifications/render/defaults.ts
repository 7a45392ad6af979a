import type { EventResource, RenderInput } from '../types.js';
import { mdEscape, mdLink } from './markdown.js';

/**
 * The default title and markdown per event (a rule whose template is null), worded in the spirit of the reference's
 * defaults (mission-control notification/events.go and templates/): "Check X has failed", "<type> X is unhealthy",
 * "<type> X was updated", "Component X is warning", incident titles with their id and severity. Built from the event's
 * resource, every resource value escaped, and always ending with the resource link and, when it can be silenced, the
 * silence link. A digest (input.group) is "50 checks failing" and a linked list.
 */

export interface Links {
  /** publicUrl + resource.permalink */
  url: string;
  /** publicUrl + resource.silenceLink, when the kind can be silenced */
  silenceUrl?: string;
}

type Env = Record<string, unknown>;

function field(env: Env, ...path: string[]): string {
  let v: unknown = env;
  for (const key of path) v = v && typeof v === 'object' ? (v as Env)[key] : undefined;
  return v === undefined || v === null || typeof v === 'object' ? '' : String(v);
}

export function absolute(publicUrl: string, path: string | undefined): string | undefined {
  if (!path) return undefined;
  if (/^https?:\/\//i.test(path)) return path;
  return `${publicUrl.replace(/\/+$/, '')}${path.startsWith('/') ? '' : '/'}${path}`;
}

export function linksOf(resource: EventResource, publicUrl: string): Links {
  return { url: absolute(publicUrl, resource.permalink) ?? publicUrl, silenceUrl: absolute(publicUrl, resource.silenceLink) };
}

const KIND_LABEL: Record<string, string> = {
  check: 'Health Check', canary: 'Canary', config: 'Catalog', component: 'Component', incident: 'Incident', playbook: 'Playbook Run',
};

/** The default title of one resource's event (plain text, not escaped: titles are never rendered as markdown). */
export function defaultTitle(eventName: string, r: EventResource): string {
  const env = r.env;
  const [kind, ...rest] = eventName.split('.');
  const what = rest.join('.');
  const type = r.type ? `${r.type} ` : '';
  const incident = () => {
    const id = field(env, 'incident', 'incident_id');
    return `${id ? `${id}: ` : ''}${field(env, 'incident', 'title') || r.name}`;
  };
  switch (kind) {
    case 'check':
      return `Check ${r.name} has ${what === 'passed' ? 'passed' : 'failed'}`;
    case 'config':
      if (['created', 'updated', 'changed', 'deleted'].includes(what)) return `${type}${r.name} was ${what}`;
      return `${type}${r.name} is ${r.health ?? what}`;
    case 'component':
      return `Component ${r.name} is ${r.health ?? what}`;
    case 'incident': {
      const severity = field(env, 'incident', 'severity');
      if (what === 'created') return `${incident()}${severity ? ` (${severity})` : ''} created`;
      if (what.startsWith('status.')) return `${incident()} status updated to ${what.slice(7)}`;
      if (what === 'responder.added') return `New responder added to ${incident()}`;
      if (what === 'responder.removed') return `Responder removed from ${incident()}`;
      if (what === 'comment.added') return `${field(env, 'author', 'name') || 'Someone'} left a comment on ${incident()}`;
      if (what === 'dod.added') return `Definition of Done added | ${incident()}`;
      if (what === 'dod.passed') return `Definition of Done passed | ${incident()}`;
      if (what === 'dod.regressed') return `Definition of Done regressed | ${incident()}`;
      return `${incident()}: ${eventName}`;
    }
    case 'playbook': {
      const name = field(env, 'playbook', 'title') || field(env, 'playbook', 'name') || r.name;
      if (eventName === 'playbook.run') return `Playbook ${name} run ${r.status || field(env, 'run', 'status') || 'updated'}`;
      if (eventName === 'playbook.approval.inserted') return `Playbook ${name}: a run was approved`;
      if (eventName === 'playbook.spec.approval.updated') return `Playbook ${name}: approval settings updated`;
      return `Playbook ${name}: ${eventName}`;
    }
    default:
      return `${r.name}: ${eventName}`;
  }
}

/** A failing check's error: the last run's error (the check source's env), the reference's check_status, the description. */
function checkError(r: EventResource): string {
  return field(r.env, 'check', 'last_error') || field(r.env, 'check_status', 'error') || field(r.env, 'status', 'error') || (r.description ?? '');
}

function mapLines(title: string, m: Record<string, string> | undefined): string[] {
  const keys = Object.keys(m ?? {}).sort();
  if (!keys.length) return [];
  return ['', `**${title}**`, ...keys.map((k) => `- ${mdEscape(k)}: ${mdEscape(m![k])}`)];
}

/** The lines of facts about a resource: kind-specific fields, health, status, description. */
function facts(eventName: string, r: EventResource): string[] {
  const env = r.env;
  const lines: string[] = [];
  const add = (label: string, value: string | null | undefined) => {
    if (value) lines.push(`**${label}**: ${mdEscape(value)}`);
  };
  const kind = eventName.split('.')[0];
  if (kind === 'check') {
    add('Canary', field(env, 'canary', 'name'));
    add('Namespace', field(env, 'canary', 'namespace') || field(env, 'check', 'namespace'));
    add('Type', r.type);
    const shown = eventName === 'check.failed' ? checkError(r) : field(env, 'check', 'last_message') || field(env, 'check_status', 'message') || r.description;
    add(eventName === 'check.failed' ? 'Error' : 'Message', shown);
    const description = field(env, 'check', 'description');
    if (description !== shown) add('Description', description);
  } else if (kind === 'incident') {
    add('Type', field(env, 'incident', 'type') || r.type);
    add('Severity', field(env, 'incident', 'severity'));
    add('Status', field(env, 'incident', 'status') || r.status);
    if (eventName.startsWith('incident.responder')) add('Responder', field(env, 'responder', 'name') || field(env, 'responder', 'type'));
    if (eventName === 'incident.comment.added') add('Comment', field(env, 'comment', 'comment'));
    if (eventName.startsWith('incident.dod')) {
      add('Evidence', field(env, 'evidence', 'description'));
      add('Hypothesis', field(env, 'hypothesis', 'title'));
    }
    add('Description', field(env, 'incident', 'description') || r.description);
  } else {
    add('Type', r.type);
    add('Health', r.health);
    add('Status', r.status);
    add('Description', r.description);
  }
  if (kind === 'check' || kind === 'incident') add('Health', r.health);
  return lines;
}

function linkLine(r: EventResource, links: Links): string {
  const view = mdLink(`View ${KIND_LABEL[r.kind] ?? r.kind}`, links.url);
  return links.silenceUrl ? `${view} | ${mdLink('Silence', links.silenceUrl)}` : view;
}

/** The default title and markdown body of one event. */
export function defaultMessage(input: RenderInput): { title: string; markdown: string } {
  const r = input.resource;
  const links = linksOf(r, input.publicUrl);
  const body = [
    ...facts(input.eventName, r),
    ...mapLines('Labels', r.labels),
    ...mapLines('Tags', r.tags),
    '',
    linkLine(r, links),
  ];
  return { title: defaultTitle(input.eventName, r), markdown: body.join('\n').trim() };
}

const PLURAL: Record<string, string> = {
  check: 'checks', canary: 'canaries', config: 'configs', component: 'components', incident: 'incidents', playbook: 'playbook runs',
};

/** What a digest's resources are doing: failing, passing, unhealthy, updated... */
function state(eventName: string): string {
  const what = eventName.split('.').slice(1).join('.');
  if (eventName === 'check.failed') return 'failing';
  if (eventName === 'check.passed') return 'passing';
  if (what.startsWith('status.')) return what.slice(7);
  return what.replace(/\./g, ' ');
}

/** The resources of a digest: the group, with the event's own resource first when it is not in it. */
export function digestResources(input: RenderInput): EventResource[] {
  const group = input.group ?? [];
  return group.some((g) => g.id === input.resource.id) ? group : [input.resource, ...group];
}

/** A digest: "50 checks failing" and each resource linked, with its error or description, and its silence link. */
export function digestMessage(input: RenderInput): { title: string; markdown: string } {
  const all = digestResources(input);
  const kind = input.resource.kind;
  const title = `${all.length} ${all.length === 1 ? kind : PLURAL[kind] ?? `${kind}s`} ${state(input.eventName)}`;
  const lines = all.map((r) => {
    const links = linksOf(r, input.publicUrl);
    const detail = (r.kind === 'check' && input.eventName === 'check.failed' ? checkError(r) : r.description) || r.health || '';
    const silence = links.silenceUrl ? ` (${mdLink('Silence', links.silenceUrl)})` : '';
    return `- ${mdLink(r.name, links.url)}${detail ? `: ${mdEscape(detail)}` : ''}${silence}`;
  });
  return { title, markdown: lines.join('\n') };
}
