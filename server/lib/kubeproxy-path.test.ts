import { describe, expect, it } from 'vitest';
import { kubeproxyPathToken, redactKubeproxyPathToken, stripKubeproxyPathToken } from './kubeproxy-path.js';

describe('the kubeproxy path token', () => {
  it('is read, stripped and redacted only under /kubeproxy/t/', () => {
    const url = '/kubeproxy/t/abc.def/apis/canaries.flanksource.com/v1/canaries?watch=true';
    expect(kubeproxyPathToken(url)).toBe('abc.def');
    expect(stripKubeproxyPathToken(url)).toBe('/kubeproxy/apis/canaries.flanksource.com/v1/canaries?watch=true');
    expect(redactKubeproxyPathToken(url)).toBe('/kubeproxy/t/[redacted]/apis/canaries.flanksource.com/v1/canaries?watch=true');
    expect(stripKubeproxyPathToken('/kubeproxy/t/abc')).toBe('/kubeproxy');
    for (const other of ['/kubeproxy/api/v1', '/api/t/abc', '/kubeproxy/tx/abc', '/kubeproxy/t/']) {
      expect(kubeproxyPathToken(other)).toBeNull();
      expect(stripKubeproxyPathToken(other)).toBe(other);
      expect(redactKubeproxyPathToken(other)).toBe(other);
    }
    expect(kubeproxyPathToken('/kubeproxy/t/%E0%A4%A')).toBeNull();
  });
});
