import type { FlowType } from '../../../../contracts/identity.js';
import type { FlowKind } from '../types.js';
import { loginKind } from './login.js';
import { recoveryKind } from './recovery.js';
import { registrationKind } from './registration.js';
import { settingsKind } from './settings.js';
import { verificationKind } from './verification.js';

/** The self-service flow kinds, one line each (recovery and verification come with their module). */
export const FLOW_KINDS: FlowKind[] = [
  loginKind,
  registrationKind,
  settingsKind,
  recoveryKind,
  verificationKind,
];

/** The kind of a flow type; throws for a type without one (its routes answer 404 before). */
export function kindOf(type: FlowType): FlowKind {
  const kind = FLOW_KINDS.find((k) => k.type === type);
  if (!kind) throw new Error(`no flow kind for ${type}`);
  return kind;
}

export const hasKind = (type: string): type is FlowType => FLOW_KINDS.some((k) => k.type === type);
