import { describe, expect, it } from 'vitest';
import { slackBlocksOf, slackShape, toMrkdwn } from './slack.js';

describe('slack shape', () => {
  it('converts markdown links, bold, headings and lists to mrkdwn, escaping &<>', () => {
    expect(toMrkdwn('**Error**: a < b & c\n### Labels\n- env: prod\n[View](https://x.example/a?b=1&c=2)'))
      .toBe('*Error*: a &lt; b &amp; c\n*Labels*\n• env: prod\n<https://x.example/a?b=1&c=2|View>');
  });

  it('keeps escaped markdown as text and drops unsafe link targets', () => {
    expect(toMrkdwn('\\*\\*not bold\\*\\* \\[x\\](javascript:alert(1)) [y](javascript:void) <script>')).toBe(
      '**not bold** [x](javascript:alert(1)) y &lt;script&gt;',
    );
  });

  it('is a header, mrkdwn sections, a context and link buttons to the resource and Silence', () => {
    const s = slackShape({
      title: 'Check api has failed', markdown: '**Error**: boom\n\n[View](https://c.example/h)', context: 'check.failed · health: unhealthy',
      url: 'https://c.example/h', urlLabel: 'View Health Check', silenceUrl: 'https://c.example/notifications/silences/add?check_id=1',
    });
    expect(s.text).toBe('Check api has failed');
    expect(s.blocks).toEqual([
      { type: 'header', text: { type: 'plain_text', text: 'Check api has failed', emoji: true } },
      { type: 'section', text: { type: 'mrkdwn', text: '*Error*: boom' } },
      { type: 'section', text: { type: 'mrkdwn', text: '<https://c.example/h|View>' } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: 'check.failed · health: unhealthy' }] },
      { type: 'actions', elements: [
        { type: 'button', text: { type: 'plain_text', text: 'View Health Check', emoji: true }, url: 'https://c.example/h', action_id: 'view' },
        { type: 'button', text: { type: 'plain_text', text: '🔕 Silence', emoji: true }, url: 'https://c.example/notifications/silences/add?check_id=1', action_id: 'silence' },
      ] },
    ]);
  });

  it('keeps within Slack limits: header 150 characters, sections 3000, 50 blocks', () => {
    const s = slackShape({ title: 'x'.repeat(400), markdown: Array.from({ length: 80 }, () => 'y'.repeat(4000)).join('\n\n') });
    const blocks = s.blocks as Array<{ type: string; text: { text: string } }>;
    expect(blocks[0].text.text).toHaveLength(150);
    expect(blocks.length).toBeLessThanOrEqual(50);
    expect(Math.max(...blocks.slice(1).map((b) => b.text.text.length))).toBe(3000);
  });

  it('reads a template\'s own blocks JSON', () => {
    expect(slackBlocksOf(' {"blocks": [{"type": "divider"}]} ')).toEqual([{ type: 'divider' }]);
    expect(slackBlocksOf('{"blocks": oops')).toBeNull();
    expect(slackBlocksOf('plain "blocks"')).toBeNull();
  });
});
