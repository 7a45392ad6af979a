import { describe, expect, it } from 'vitest';
import { mergePatchBetween } from './canary-edits.js';
import { gitOpsOf, newerVersion, rowIdOf } from './objects.js';

describe('gitOpsOf', () => {
  it('names the Flux Kustomization or HelmRelease, or the Argo CD application, that applied a CR', () => {
    expect(gitOpsOf({ labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' } }))
      .toEqual({ managedBy: 'flux', link: 'Flux kustomization flux-system/apps' });
    expect(gitOpsOf({ labels: { 'helm.toolkit.fluxcd.io/name': 'web', 'helm.toolkit.fluxcd.io/namespace': 'prod' } }))
      .toEqual({ managedBy: 'flux', link: 'Flux HelmRelease prod/web' });
    expect(gitOpsOf({ annotations: { 'argocd.argoproj.io/tracking-id': 'guestbook:canaries.flanksource.com/Canary:apps/web' } }))
      .toEqual({ managedBy: 'argo', link: 'Argo CD application guestbook' });
    expect(gitOpsOf({ labels: { 'argocd.argoproj.io/instance': 'guestbook' } }))
      .toEqual({ managedBy: 'argo', link: 'Argo CD application guestbook' });
    expect(gitOpsOf({ annotations: { 'argocd.argoproj.io/sync-wave': '1' } })).toEqual({ managedBy: 'argo', link: 'Argo CD' });
    expect(gitOpsOf({ labels: { 'source.toolkit.fluxcd.io/something': 'x' } })).toEqual({ managedBy: 'flux', link: 'Flux' });
  });

  it('leaves a CR without GitOps marks editable', () => {
    expect(gitOpsOf({})).toBeNull();
    expect(gitOpsOf({ labels: { app: 'web', 'app.kubernetes.io/instance': 'web' }, annotations: { note: 'fluxcd' } })).toBeNull();
  });
});

describe('rowIdOf', () => {
  it('keeps a uid that is a UUID, and derives a stable UUID from anything else', () => {
    expect(rowIdOf('3B3BA35A-89FD-43E9-999E-F6BC5EA2AF9A')).toBe('3b3ba35a-89fd-43e9-999e-f6bc5ea2af9a');
    const derived = rowIdOf('not-a-uuid');
    expect(derived).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(rowIdOf('not-a-uuid')).toBe(derived);
    expect(rowIdOf('not-a-uuid-2')).not.toBe(derived);
  });
});

describe('newerVersion', () => {
  it('compares integer resourceVersions numerically and refuses to order anything else', () => {
    expect(newerVersion('10', '9')).toBe(true);
    expect(newerVersion('9', '10')).toBe(false);
    expect(newerVersion('abc', '9')).toBeNull();
    expect(newerVersion(null, '9')).toBeNull();
  });
});

describe('mergePatchBetween (RFC 7386)', () => {
  it('sets removed keys to null, recurses into objects and replaces arrays whole', () => {
    const from = { schedule: '@every 1m', severity: 'high', http: [{ name: 'a' }], env: { a: '1', b: '2' } };
    const to = { schedule: '@every 5m', http: [{ name: 'a' }, { name: 'b' }], env: { a: '1', c: '3' } };
    expect(mergePatchBetween(from, to)).toEqual({
      schedule: '@every 5m', severity: null, http: [{ name: 'a' }, { name: 'b' }], env: { b: null, c: '3' },
    });
    expect(mergePatchBetween(from, from)).toEqual({});
  });
});
