/**
 * The LoggingBackend spec (apm-hub.flanksource.com/v1, flanksource/apm-hub's LoggingBackendSpec, plus loki and
 * console): defined with the log search in contracts/logs.ts, so the CR, /api/db writes and POST /api/logs read one schema.
 */
export { LoggingBackendSpec } from '../../../contracts/logs.js';
