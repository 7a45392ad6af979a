import type { KubeObject } from '../../kubernetes/objects.js';
import type { ScrapedAnalysis } from '../types.js';

/** Insights about Kubernetes objects (failing pods, unavailable replicas, missing limits, :latest, root). */
export function analyzeKubernetes(objs: KubeObject[]): ScrapedAnalysis[] {
  void objs;
  return [];
}
