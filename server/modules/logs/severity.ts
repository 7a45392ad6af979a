import type { LogSeverity } from '../../contracts/logs.js';

/**
 * Severity of a log line: a mapped field's value normalised (error, warn, info, debug), or guessed from the line's
 * text (a level word near its start, `level=error`, `"level":"warn"`, pino's numeric levels).
 */

const WORDS: Record<string, LogSeverity> = {
  error: 'error', err: 'error', eror: 'error', fatal: 'error', panic: 'error', critical: 'error', crit: 'error', alert: 'error',
  emerg: 'error', emergency: 'error', severe: 'error', e: 'error', f: 'error',
  warn: 'warn', warning: 'warn', wrn: 'warn', w: 'warn',
  info: 'info', information: 'info', informational: 'info', notice: 'info', inf: 'info', i: 'info',
  debug: 'debug', dbg: 'debug', trace: 'debug', verbose: 'debug', d: 'debug', t: 'debug',
};

/** A field's value as a severity: a level word (any case) or a number (pino: 50+ error, 40 warn, 30 info, below debug). */
export function normaliseSeverity(v: unknown): LogSeverity | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v >= 50 ? 'error' : v >= 40 ? 'warn' : v >= 30 ? 'info' : 'debug';
  if (typeof v !== 'string') return undefined;
  const s = v.trim().toLowerCase();
  if (/^\d+$/.test(s)) return normaliseSeverity(Number(s));
  return WORDS[s];
}

const KEYED = /\b(?:level|lvl|severity|loglevel)["']?\s*[=:]\s*["']?([A-Za-z]+|\d+)/i;
const WORD = /(?:^|[\s[(|:])(ERROR|ERR|FATAL|PANIC|CRITICAL|CRIT|WARN|WARNING|INFO|DEBUG|TRACE|error|fatal|panic|warn|warning|info|debug|trace)(?=$|[\s\]):|,])/;
// klog: E0102 15:04:05.000000 ...
const KLOG = /^([EWID])\d{4} \d{2}:\d{2}:\d{2}/;

/** Guesses a line's severity from its first 200 characters; undefined when nothing says. */
// ANSI SGR / CSI sequences (`\x1b[31mERROR\x1b[0m`): a coloured level word is still the level word
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

export function guessSeverity(line: string): LogSeverity | undefined {
  const raw = line.length > 200 ? line.slice(0, 200) : line;
  const head = raw.includes('\x1b') ? raw.replace(ANSI, '') : raw;
  const keyed = KEYED.exec(head);
  if (keyed) {
    const s = normaliseSeverity(keyed[1]);
    if (s) return s;
  }
  const klog = KLOG.exec(head);
  if (klog) return normaliseSeverity(klog[1]);
  const word = WORD.exec(head);
  return word ? normaliseSeverity(word[1]) : undefined;
}
