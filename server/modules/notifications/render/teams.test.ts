import { describe, expect, it } from 'vitest';
import { teamsShape } from './teams.js';

describe('teams shape', () => {
  it('is an Adaptive Card message with the title, the body and buttons to the resource and Silence', () => {
    const card = teamsShape({
      title: 'Check api has failed', markdown: '**Error**: a \\*b\\* <i>\n\n[View](https://c.example/h) [bad](javascript:x)',
      url: 'https://c.example/h', urlLabel: 'View Health Check', silenceUrl: 'https://c.example/s',
    });
    expect(card).toEqual({
      type: 'message',
      summary: 'Check api has failed',
      attachments: [{
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text: 'Check api has failed', weight: 'Bolder', size: 'Medium', wrap: true },
            { type: 'TextBlock', text: '**Error**: a *b* <i>\n\n[View](https://c.example/h) bad', wrap: true },
          ],
          actions: [
            { type: 'Action.OpenUrl', title: 'View Health Check', url: 'https://c.example/h' },
            { type: 'Action.OpenUrl', title: 'Silence', url: 'https://c.example/s' },
          ],
          msteams: { width: 'Full' },
        },
      }],
    });
  });
});
