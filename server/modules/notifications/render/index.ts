import { compileGoTemplate, GoTemplateError, renderGoTemplate } from '../../../lib/go-template.js';
import type { NotificationMessage, Problem, RenderInput } from '../types.js';
import { defaultMessage, defaultTitle, digestMessage, digestResources, linksOf } from './defaults.js';
import { emailHtml } from './email.js';
import { notificationFuncs } from './funcs.js';
import { slackBlocksOf, slackShape } from './slack.js';
import { teamsShape } from './teams.js';
import { toPlainText } from './text.js';

/**
 * Renders a notification (issue 15 "template null", "Custom ones"). A rule without a template gets the event's default
 * title and markdown (defaults.ts; a digest when input.group is given); a rule's `title` and `template` are Go
 * templates over the resource's variables (`.check.name`, `.canary.name`, `.incident.title`, `.config.labels`…) plus
 * `.permalink`, `.silenceURL` (absolute), `.groupedResources` (a digest's names) and the function `channel`. The
 * markdown is then shaped: plain text always, email HTML when read, Slack blocks for slack, an Adaptive Card for teams.
 * A custom template failing at run time throws (`template: …` / `title: …`): the caller records the send as an error.
 */

const KIND_VIEW: Record<string, string> = {
  check: 'View Health Check', canary: 'View Canary', config: 'View Catalog', component: 'View Component',
  incident: 'View Incident', playbook: 'View Playbook Run',
};

/** What a custom template sees. */
export function templateData(input: RenderInput): Record<string, unknown> {
  const links = linksOf(input.resource, input.publicUrl);
  const data: Record<string, unknown> = {
    ...input.resource.env,
    permalink: links.url,
    silenceURL: links.silenceUrl ?? '',
    channel: input.channel,
  };
  // the reference's templates read `.check_status.error`: the check source carries it as check.last_error
  const check = input.resource.env.check as Record<string, unknown> | undefined;
  if (check && typeof check === 'object' && !('check_status' in data)) {
    data.check_status = { status: check.status ?? null, error: check.last_error ?? '', message: check.last_message ?? '' };
  }
  if (input.group?.length) data.groupedResources = digestResources(input).map((r) => r.name);
  return data;
}

function run(template: string, field: string, input: RenderInput, data: Record<string, unknown>): string {
  try {
    return renderGoTemplate(template, data, {}, notificationFuncs(input.channel));
  } catch (err) {
    const msg = (err as Error).message;
    throw new Error(field === 'template' || msg.startsWith(`${field}:`) ? msg : `${field}: ${msg}`);
  }
}

export function renderNotification(input: RenderInput): NotificationMessage {
  const digest = !!input.group?.length;
  const base = digest ? digestMessage(input) : defaultMessage(input);
  const data = input.rule.title || input.rule.template ? templateData(input) : {};
  let title = base.title;
  if (input.rule.title) {
    const t = run(input.rule.title, 'title', input, data).replace(/\s+/g, ' ').trim();
    if (t) title = t;
  } else if (input.rule.template && !digest) title = defaultTitle(input.eventName, input.resource);
  let markdown = base.markdown;
  let customBlocks: unknown[] | null = null;
  if (input.rule.template) {
    markdown = run(input.rule.template, 'template', input, data);
    if (input.channel === 'slack') customBlocks = slackBlocksOf(markdown);
    // a digest's custom body that does not list the group itself gets the list appended, as the reference does
    if (digest && !customBlocks && !/groupedResources/.test(input.rule.template)) {
      markdown = `${markdown}\n\n${base.markdown}`.trim();
    }
  }
  const links = linksOf(input.resource, input.publicUrl);
  const urlLabel = digest ? 'View' : KIND_VIEW[input.resource.kind] ?? 'View';
  let html: string | undefined;
  const message = {
    title,
    markdown,
    text: customBlocks ? toPlainText(base.markdown) : toPlainText(markdown),
  } as NotificationMessage;
  // the email HTML (marked) only for the senders that read it (email, matrix): most channels never do
  Object.defineProperty(message, 'html', {
    enumerable: true, configurable: true,
    get: () => (html ??= emailHtml(title, customBlocks ? base.markdown : markdown)),
    set: (v: string) => { html = v; },
  });
  if (input.channel === 'slack') {
    message.slack = customBlocks
      ? { text: title, blocks: customBlocks }
      : slackShape({
        title, markdown, url: digest ? undefined : links.url, urlLabel, silenceUrl: digest ? undefined : links.silenceUrl,
        context: digest ? undefined : contextLine(input),
      });
  }
  if (input.channel === 'teams') {
    message.teams = teamsShape({ title, markdown, url: digest ? undefined : links.url, urlLabel, silenceUrl: digest ? undefined : links.silenceUrl });
  }
  return message;
}

function contextLine(input: RenderInput): string {
  const r = input.resource;
  return [input.eventName, r.health ? `health: ${r.health}` : '', r.type ?? ''].filter(Boolean).join(' · ');
}

const NAMED = /\{\{(define|template|block)\}\} \(named templates\) is not supported/;
const UNKNOWN_FN = /function "([^"]+)" not defined/;
const POS = /^template: (\d+:\d+): /;

/**
 * Problems of a rule's title or template (`field`, default `template`), as the save refuses them: actions this console
 * does not run (`define`, `template`, `block`: named templates), unknown functions, and syntax errors, each naming
 * what is wrong and where (line:column).
 */
export function templateProblems(template: string, field = 'template'): Problem[] {
  try {
    compileGoTemplate(template, notificationFuncs(''));
    return [];
  } catch (err) {
    if (!(err instanceof GoTemplateError)) throw err;
    const msg = err.message;
    const at = POS.exec(msg)?.[1];
    const where = at ? ` at ${at}` : '';
    const named = NAMED.exec(msg);
    if (named) return [{ path: field, message: `unsupported action "${named[1]}"${where}` }];
    const fn = UNKNOWN_FN.exec(msg);
    if (fn) return [{ path: field, message: `unknown function "${fn[1]}"${where}` }];
    return [{ path: field, message: msg.replace(/^template: /, '') }];
  }
}
