import type { Feature, Resource } from '@contracts/rbac-table';
import type { SessionInfo } from './session-context';

/** For tests: a session where every resource is readable unless denied, every feature on unless turned off. */
export function sessionStub(opts: { off?: Feature[]; deny?: Resource[]; mode?: SessionInfo['about']['mode'] } = {}): SessionInfo {
  return {
    about: { appVersion: 'test', chartVersion: null, mode: opts.mode ?? 'console' },
    can: (resource: Resource) => !opts.deny?.includes(resource),
    enabled: (feature: Feature) => !opts.off?.includes(feature),
    isViewer: false,
  } as unknown as SessionInfo;
}

