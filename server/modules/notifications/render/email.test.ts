import { describe, expect, it } from 'vitest';
import { emailHtml, markdownToHtml } from './email.js';
import { mdEscape, mdLink } from './markdown.js';

describe('email HTML', () => {
  it('escapes raw HTML in markdown: <script> arrives as text', () => {
    const html = markdownToHtml('Error: <script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n<b>bold?</b>');
    expect(html).not.toMatch(/<script|<img|<b>/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(2)&gt;');
  });

  it('drops javascript: links and images, keeps http links and markdown', () => {
    const html = markdownToHtml('**Error**: x\n\n[ok](https://c.example/a?b=1&c=2) [bad](javascript:alert(1)) ![pic](https://t.example/p.png)');
    expect(html).toContain('<strong>Error</strong>');
    expect(html).toContain('<a href="https://c.example/a?b=1&amp;c=2">ok</a>');
    expect(html).not.toMatch(/javascript:|<img/);
  });

  it('a hostile resource name escaped into markdown stays text in HTML', () => {
    const name = '<script>x</script> **b** [l](javascript:y)';
    const html = emailHtml(`Check ${name} has failed`, `**Check**: ${mdEscape(name)}\n\n${mdLink(name, 'https://c.example/h')}`);
    expect(html).not.toMatch(/<script|<strong>b|javascript:y"/);
    expect(html).toContain('<h2 style="font-size: 18px">Check &lt;script&gt;x&lt;/script&gt; **b** [l](javascript:y) has failed</h2>');
    expect(html).toContain('&lt;script&gt;x&lt;/script&gt; **b** [l](javascript:y)</a>');
  });
});
