// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { renderWithProviders } from '../../../lib/testing';
import { Markdown } from './markdown';

describe('Markdown (notification bodies)', () => {
  it('renders headings, emphasis, lists and web links', () => {
    renderWithProviders(<Markdown text={'### Check api failed\n\n**Reason**: `timeout`\n\n- one\n- two\n\n[Open](https://console.example.test/health)'} />);
    expect(screen.getByRole('heading', { name: 'Check api failed' })).toBeTruthy();
    expect(screen.getByText('timeout').tagName).toBe('CODE');
    expect(screen.getAllByRole('listitem')).toHaveLength(2);
    expect(screen.getByRole('link', { name: 'Open' }).getAttribute('href')).toBe('https://console.example.test/health');
  });

  it('shows raw HTML as text and never follows javascript: links', () => {
    const { container } = renderWithProviders(
      <Markdown text={'<img src=x onerror="alert(1)">\n\nhi <b>there</b> [click](javascript:alert(1))'} />,
    );
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect(container.textContent).toContain('<img src=x onerror="alert(1)">');
    expect(container.textContent).toContain('<b>there</b>');
    expect(screen.queryByRole('link')).toBeNull();
    expect(container.textContent).toContain('click');
  });
});
