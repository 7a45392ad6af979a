import { describe, expect, it } from 'vitest';
import { goTemplateError, renderGoTemplate } from '../../../lib/go-template.js';
import { notificationFuncs } from './funcs.js';

describe('notification template functions', () => {
  it('channel is known only where the notification renderer passes it', () => {
    expect(goTemplateError('{{ channel }}')).toMatch(/function "channel" not defined/);
    expect(goTemplateError('{{ channel }}', notificationFuncs('slack'))).toBeNull();
    expect(renderGoTemplate('{{ if eq channel "slack" }}S{{ else }}O{{ end }}', {}, {}, notificationFuncs('slack'))).toBe('S');
    expect(renderGoTemplate('{{ if eq channel "slack" }}S{{ else }}O{{ end }}', {}, {}, notificationFuncs('email'))).toBe('O');
    // the parse cache keeps templates with and without the extras apart
    expect(goTemplateError('{{ channel }}')).toMatch(/not defined/);
  });

  it('labelsFormat and slackHealthEmoji as the reference words them', () => {
    const f = notificationFuncs('email');
    expect(renderGoTemplate('{{ labelsFormat .l }}', { l: { b: '2', a: '1' } }, {}, f)).toBe('### Labels:\n**a**: 1 \n**b**: 2');
    expect(renderGoTemplate('{{ labelsFormat .l }}', { l: {} }, {}, f)).toBe('');
    expect(renderGoTemplate('{{ slackHealthEmoji "healthy" }} {{ slackHealthEmoji "x" }}', {}, {}, f)).toBe(':large_green_circle: :white_circle:');
  });
});
