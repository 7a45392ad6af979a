// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../lib/testing';
import { AnsiMessage } from './ansi-message';

describe('AnsiMessage', () => {
  it('renders ANSI colours and decorations as styled spans, the escapes gone', () => {
    const { container } = renderWithProviders(<AnsiMessage text={'\u001b[31merror\u001b[0m then \u001b[1;32mok\u001b[0m'} />);
    expect(container.textContent).toBe('error then ok');
    const spans = [...container.querySelectorAll('span[data-ansi]')];
    expect(spans.map((s) => [s.textContent, s.getAttribute('data-ansi')])).toEqual([['error', 'red'], ['ok', 'green']]);
    expect((spans[0] as HTMLElement).style.color).not.toBe('');
    expect(container.textContent).not.toContain('\u001b');
  });

  it('keeps markup in a line as text (no HTML is ever parsed)', () => {
    const { container } = renderWithProviders(<AnsiMessage text={'<img src=x onerror=alert(1)> \u001b[33m<b>warn</b>'} />);
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect(container.textContent).toBe('<img src=x onerror=alert(1)> <b>warn</b>');
  });

  it('leaves URLs as text', () => {
    const { container } = renderWithProviders(<AnsiMessage text="see https://example.com/x" />);
    expect(container.querySelector('a')).toBeNull();
    expect(container.textContent).toBe('see https://example.com/x');
  });
});
