import semver from 'semver';
import { formatValue } from './format.js';

/**
 * The value-level helpers of the reference's gomplate library (flanksource/gomplate), shared by the Go template
 * functions and the CEL functions of the same names: each follows the Go source cited beside it, including its
 * quirks, so a manifest prints what it printed in the reference.
 */

const NS_PER = { ns: 1n, us: 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };
const DAY = NS_PER.h * 24n;
const WEEK = DAY * 7n;

/**
 * strings/duration.go Duration.String(), behind HumanDuration / humanDuration: a duration in nanoseconds as `1m15s`,
 * `1d8h`, `1w6d8h`. Under a second it uses ns/µs/ms; over a day it drops seconds; over a week, minutes. The reference
 * then deletes every "0s" and "0m" in the text (so `1h0m0s` is `1h`), which also turns 10s into `1` and 100ms into
 * `10s`: kept, as the reference prints it.
 */
export function humanDuration(nanos: bigint): string {
  let u = nanos < 0n ? -nanos : nanos;
  let s: string;
  if (u < NS_PER.s) {
    if (u === 0n) return '0s';
    const [unit, prec] = u < NS_PER.us ? ['ns', 0] : u < NS_PER.ms ? ['µs', 3] : ['ms', 6];
    s = `${fraction(u, prec)}${unit}`;
  } else if (u > WEEK) {
    u /= NS_PER.h;
    s = `${u % 24n}h`;
    u /= 24n;
    if (u > 0n) {
      s = `${u % 7n}d${s}`;
      u /= 7n;
      if (u > 0n) s = `${u}w${s}`;
    }
  } else if (u > DAY) {
    u /= NS_PER.m;
    s = `${u % 60n}m`;
    u /= 60n;
    if (u > 0n) {
      s = `${u % 24n}h${s}`;
      u /= 24n;
      if (u > 0n) s = `${u}d${s}`;
    }
  } else {
    s = `${(u / NS_PER.s) % 60n}${fraction(u % NS_PER.s, 9).slice(1)}s`;
    u /= NS_PER.s * 60n;
    if (u > 0n) {
      s = `${u % 60n}m${s}`;
      u /= 60n;
      if (u > 0n) s = `${u}h${s}`;
    }
  }
  if (nanos < 0n) s = `-${s}`;
  return s.replaceAll('0s', '').replaceAll('0m', '');
}

/** `v / 10^prec` with the fraction's trailing zeros (and a bare point) dropped, as fmtFrac + fmtInt write it. */
function fraction(v: bigint, prec: number): string {
  const scale = 10n ** BigInt(prec);
  const whole = v / scale;
  const frac = prec ? (v % scale).toString().padStart(prec, '0').replace(/0+$/, '') : '';
  return frac ? `${whole}.${frac}` : `${whole}`;
}

/** A number of nanoseconds from a template or CEL value: an integer (ns), a float (truncated), or a bigint. */
export function toNanos(v: unknown): bigint | null {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return BigInt(Math.trunc(v));
  return null;
}

const UNITS: Array<[string, number]> = [['E', 2 ** 60], ['P', 2 ** 50], ['T', 2 ** 40], ['G', 2 ** 30], ['M', 2 ** 20], ['K', 2 ** 10]];

/**
 * strings/bytes.go HumanBytes, behind HumanSize / humanSize: bytes in the largest binary unit that keeps the number at
 * least 1, one decimal, `.0` dropped: 0B, 1023B, 1K, 120.6K, 1M. A string is read as an unsigned integer (else NaN).
 */
export function humanBytes(v: unknown): string {
  let bytes: number;
  if (typeof v === 'string') {
    if (!/^\d+$/.test(v)) return 'NaN';
    bytes = Number(v);
  } else if (typeof v === 'number' || typeof v === 'bigint') {
    bytes = Math.trunc(Number(v));
  } else {
    return `unknown type: ${formatValue(v)} = %!t(${formatValue(v)})`;
  }
  if (bytes === 0) return '0B';
  for (const [unit, size] of UNITS) if (bytes >= size) return `${(bytes / size).toFixed(1).replace(/\.0$/, '')}${unit}`;
  return `${bytes}B`;
}

/** A version as Masterminds/semver's NewVersion reads it: `v` prefix, missing minor/patch allowed. */
function looseVersion(text: string): semver.SemVer | null {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.exec(text.trim());
  if (!m) return null;
  return semver.parse(`${m[1]}.${m[2] ?? 0}.${m[3] ?? 0}${m[4] ?? ''}${m[5] ?? ''}`);
}

/**
 * strings/semver.go SemverCompare(constraint, version): whether the version meets the constraint, as
 * Masterminds/semver checks it (`1.2.3` is exact, `>= 1.2, < 2` joins with AND, `||` with OR, `~`, `^`, `x`).
 */
export function semverCompare(constraint: string, version: string): boolean {
  const v = looseVersion(version);
  if (!v) throw new Error(`invalid semantic version "${version}"`);
  const range = constraint.split('||').map((alt) => alt.split(',').map((c) => c.trim().replace(/^(=|!=|>=|<=|>|<|~>?|\^)\s+/, '$1')).join(' ')).join(' || ');
  if (!semver.validRange(range)) throw new Error(`improper constraint: ${constraint}`);
  return semver.satisfies(v, range);
}

/** funcs/strings.go SemverMap, behind CEL's Semver(): the parts as strings. */
export function semverMap(version: string): Record<string, string> {
  const v = looseVersion(version);
  if (!v) throw new Error(`invalid semantic version "${version}"`);
  return {
    major: String(v.major), minor: String(v.minor), patch: String(v.patch),
    prerelease: v.prerelease.join('.'), metadata: v.build.join('.'), original: version,
  };
}

/** A JSON value with map keys sorted, as the reference's canonical JSON encoder writes them. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') return (v as { toJSON: () => unknown }).toJSON();
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'bigint') return Number(v);
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(o).sort().map((k) => [k, canonical(o[k])]));
  }
  return v === undefined ? null : v;
}

/** data/data.go ToJSON2 (toJSON): compact JSON, keys sorted, HTML characters as is. */
export function toJSON(v: unknown): string {
  return JSON.stringify(canonical(v));
}

/** data/data.go ToJSONPretty(indent, v): the same, indented with `indent` as Go's json.Indent does. */
export function toJSONPretty(indent: string, v: unknown): string {
  return JSON.stringify(canonical(v), null, indent);
}

/** conv.ToInt64: strings parsed (commas dropped, then as a float), floats truncated, booleans 1/0, else 0. */
export function toInt64(v: unknown): number {
  if (typeof v === 'string') {
    const s = v.replaceAll(',', '').trim();
    const n = /^[+-]?0[xX][0-9a-fA-F]+$/.test(s) ? parseInt(s, 16) : Number(s);
    return s && Number.isFinite(n) ? Math.trunc(n) : 0;
  }
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : 0;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return 0;
}

/** conv.ToFloat64: as ToInt64 without truncating. */
export function toFloat64(v: unknown): number {
  if (typeof v === 'string') {
    const s = v.replaceAll(',', '').trim();
    const n = Number(s);
    return s && Number.isFinite(n) ? n : 0;
  }
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return 0;
}

/** conv.ToString: nil as "nil", maps as JSON, anything else as fmt.Sprint prints it. */
export function toGoString(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'string') return v;
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)) return JSON.stringify(v);
  return formatValue(v);
}

/** conv.ToBool: true, "1", "t", "true", "yes" (any case), and 1. */
export function toBool(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return ['1', 't', 'true', 'yes'].includes(v.toLowerCase()) || toFloat64(v) === 1;
  if (typeof v === 'number') return v === 1;
  return false;
}

/** Go's time.Duration String(): 1h0m0s, 1m15s, 1.5s, 250ms. */
export function goDurationString(ns: bigint): string {
  if (ns < 0n) return `-${goDurationString(-ns)}`;
  if (ns < 1_000_000_000n) {
    if (ns === 0n) return '0s';
    const [unit, scale, digits] = ns < 1_000n ? ['ns', 1n, 0] : ns < 1_000_000n ? ['µs', 1_000n, 3] : ['ms', 1_000_000n, 6];
    const frac = digits ? (ns % scale).toString().padStart(digits, '0').replace(/0+$/, '') : '';
    return `${ns / scale}${frac ? `.${frac}` : ''}${unit}`;
  }
  const h = ns / 3_600_000_000_000n;
  const m = (ns / 60_000_000_000n) % 60n;
  const sNanos = ns % 60_000_000_000n;
  const whole = sNanos / 1_000_000_000n;
  const frac = (sNanos % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  const secs = `${whole}${frac ? `.${frac}` : ''}s`;
  return h ? `${h}h${m}m${secs}` : m ? `${m}m${secs}` : secs;
}
