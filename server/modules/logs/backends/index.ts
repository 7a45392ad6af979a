import type { LogBackend } from '../types.js';
import { consoleBackend } from './console.js';
import { kubernetesBackend } from './kubernetes.js';
import { lokiBackend } from './loki.js';
import { searchBackend } from './opensearch.js';

/** The backend types a LoggingBackend spec's `backends[]` entry may hold (its one key), one line each. */
export const LOG_BACKENDS: Record<string, LogBackend> = {
  kubernetes: kubernetesBackend,
  loki: lokiBackend,
  opensearch: searchBackend('opensearch'),
  elasticsearch: searchBackend('elasticsearch'),
  console: consoleBackend,
};
