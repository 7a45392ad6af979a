import type { ExtraFuncs, TemplateFunc } from '../../../lib/go-template.js';

/**
 * The functions notification templates may call besides Go's and gomplate's: `channel` (the sender's service, as the
 * reference's `{{ if eq channel "slack" }}`), and the reference's `labelsFormat` and `slackHealthEmoji`. Only the
 * notification renderer passes them, so health-check and playbook templates still refuse them.
 */

const fn = (min: number, max: number, call: (args: unknown[]) => unknown): TemplateFunc => ({ arity: [min, max], call });

function labelsFormat(labels: unknown): string {
  if (!labels || typeof labels !== 'object' || Array.isArray(labels)) return '';
  const keys = Object.keys(labels).sort();
  if (!keys.length) return '';
  return `### Labels:\n${keys.map((k) => `**${k}**: ${String((labels as Record<string, unknown>)[k])} `).join('\n')}\n`;
}

function slackHealthEmoji(health: unknown): string {
  switch (health) {
    case 'healthy': return ':large_green_circle:';
    case 'unhealthy': return ':red_circle:';
    case 'warning': return ':large_orange_circle:';
    default: return ':white_circle:';
  }
}

/** The names templateProblems accepts (the funcs map below with any channel). */
export const NOTIFICATION_FUNC_NAMES = ['channel', 'labelsFormat', 'slackHealthEmoji'] as const;

export function notificationFuncs(channel: string): ExtraFuncs {
  return new Map<string, TemplateFunc>([
    ['channel', fn(0, 0, () => channel)],
    ['labelsFormat', fn(1, 1, ([l]) => labelsFormat(l))],
    ['slackHealthEmoji', fn(1, 1, ([h]) => slackHealthEmoji(h))],
  ]);
}
