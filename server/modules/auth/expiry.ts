import { BadRequestError } from '../../lib/errors.js';

const UNIT_MS: Record<string, number> = {
  s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, y: 365 * 86_400_000,
};
const MIN_MS = 60_000;
const MAX_MS = 10 * UNIT_MS.y;

/** Milliseconds in a duration such as `30d`, `24h` or `1h30m`; 400 when malformed or outside 1 minute .. 10 years. */
export function parseExpiry(text: string): number {
  const trimmed = text.trim();
  if (!/^(\d{1,6}[smhdwy])+$/.test(trimmed)) {
    throw new BadRequestError(`invalid expiry "${trimmed.slice(0, 32)}": use a duration such as 24h, 30d or 1y`);
  }
  let ms = 0;
  for (const [, n, unit] of trimmed.matchAll(/(\d+)([smhdwy])/g)) ms += Number(n) * UNIT_MS[unit];
  if (ms < MIN_MS || ms > MAX_MS) throw new BadRequestError('expiry must be between 1m and 10y');
  return ms;
}
