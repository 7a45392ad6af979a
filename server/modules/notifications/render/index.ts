import type { NotificationMessage, Problem, RenderInput } from '../types.js';

/**
 * Renders a notification (issue 15 "template null", "Custom ones"): the rule's title/template over the resource, or
 * the default for the event, shaped per channel. Minimal first cut; the full renderer follows.
 */
export function renderNotification(input: RenderInput): NotificationMessage {
  const title = input.rule.title ?? `${input.resource.name}: ${input.eventName}`;
  const markdown = input.rule.template ?? `${input.resource.description ?? ''}`;
  return { title, markdown, text: markdown, html: markdown };
}

/** Problems of a rule's template (at `field`, default `template`): unsupported actions, unknown functions. */
export function templateProblems(_template: string, _field = 'template'): Problem[] {
  return [];
}
