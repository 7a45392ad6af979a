/**
 * Go's fmt printing of JSON-like values, as a template prints them: %v (maps as map[k:v] in key order, lists as
 * [a b], nil as <nil>), and the printf verbs manifests use (%v %s %d %f %g %e %t %q %x %X %c %%, width, precision,
 * `-`, `0` and `+` flags).
 */

/** The value of a missing map key: Go prints it as <no value> (a nil value prints as <nil>). */
export const NO_VALUE: unique symbol = Symbol('no value');

/** A number as Go's %v prints a float64: integers without a fraction, exponents with at least two digits. */
export function formatNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (Object.is(n, -0)) return '-0';
  const s = String(n);
  // JS switches to exponents at 1e21 as Go's %v does, and below 1e-6 where Go switches below 1e-4
  const abs = Math.abs(n);
  if (abs !== 0 && abs < 1e-4 && !s.includes('e')) return goExponent(n.toExponential());
  return s.includes('e') ? goExponent(s) : s;
}

function goExponent(s: string): string {
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

/** A value as Go's %v prints it. */
export function formatValue(v: unknown): string {
  if (v === NO_VALUE) return '<no value>';
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'string' || typeof v === 'boolean') return String(v);
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Date) return goTime(v);
  if (Array.isArray(v)) return `[${v.map(formatValue).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof (o as { goString?: unknown }).goString === 'function') return (o as { goString: () => string }).goString();
    return `map[${Object.keys(o).sort().map((k) => `${k}:${formatValue(o[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** A time as Go's time.Time String(): 2006-01-02 15:04:05.999999999 +0000 UTC. */
function goTime(d: Date): string {
  const iso = d.toISOString();
  const ms = iso.slice(20, 23).replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${ms ? `.${ms}` : ''} +0000 UTC`;
}

/** Go's fmt.Sprint: operands joined with a space only where neither side is a string. */
export function sprint(args: unknown[]): string {
  let out = '';
  args.forEach((a, i) => {
    if (i > 0 && typeof a !== 'string' && typeof args[i - 1] !== 'string') out += ' ';
    out += formatValue(a);
  });
  return out;
}

/** Go's fmt.Sprintf for the verbs manifests use; a wrong or missing operand prints as Go prints it (%!d(string=x)). */
export function sprintf(format: string, args: unknown[]): string {
  let argi = 0;
  return format.replace(/%([-+# 0]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])/g, (_all, flags: string, width?: string, prec?: string, verb?: string) => {
    if (verb === '%') return '%';
    if (argi >= args.length) return `%!${verb}(MISSING)`;
    const a = args[argi++];
    let s: string;
    const bad = () => `%!${verb}(${goTypeName(a)}=${formatValue(a)})`;
    switch (verb) {
      case 'v': s = formatValue(a); break;
      case 's': s = typeof a === 'string' ? a : formatValue(a); break;
      case 'q': s = typeof a === 'string' ? JSON.stringify(a) : bad(); break;
      case 't': s = typeof a === 'boolean' ? String(a) : bad(); break;
      case 'd':
        s = typeof a === 'number' && Number.isInteger(a) ? (flags.includes('+') && a >= 0 ? '+' : '') + String(a) : bad();
        break;
      case 'c': s = typeof a === 'number' && Number.isInteger(a) ? String.fromCodePoint(a) : bad(); break;
      case 'x':
      case 'X':
        if (typeof a === 'number' && Number.isInteger(a)) s = a.toString(16);
        else if (typeof a === 'string') s = Buffer.from(a).toString('hex');
        else s = bad();
        if (verb === 'X') s = s.toUpperCase();
        break;
      case 'f':
      case 'F':
      case 'e':
      case 'g':
        if (typeof a !== 'number') {
          s = bad();
          break;
        }
        s = verb === 'e' ? goExponent(a.toExponential(Math.min(prec === undefined ? 6 : Number(prec), 100)))
          : verb === 'g' ? (prec === undefined ? formatNumber(a) : String(Number(a.toPrecision(Math.min(Math.max(Number(prec), 1), 100)))))
            : a.toFixed(Math.min(prec === undefined ? 6 : Number(prec), 100));
        if (flags.includes('+') && a >= 0) s = `+${s}`;
        break;
      default: s = `%!${verb}(${goTypeName(a)}=${formatValue(a)})`;
    }
    if (prec !== undefined && (verb === 's' || verb === 'v') ) s = [...s].slice(0, Number(prec)).join('');
    // a width is padding only: capped so `%999999999d` cannot allocate gigabytes
    const w = width ? Math.min(Number(width), 10_000) : 0;
    if ([...s].length < w) {
      const pad = w - [...s].length;
      if (flags.includes('-')) s += ' '.repeat(pad);
      else if (flags.includes('0') && /[dfFeg]/.test(verb!)) s = s.startsWith('-') ? `-${'0'.repeat(pad)}${s.slice(1)}` : '0'.repeat(pad) + s;
      else s = ' '.repeat(pad) + s;
    }
    return s;
  }) + (argi < args.length ? `%!(EXTRA ${args.slice(argi).map((a) => `${goTypeName(a)}=${formatValue(a)}`).join(', ')})` : '');
}

/** The Go type a JSON-decoded value has, for error messages. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined || v === NO_VALUE) return '<nil>';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  if (v instanceof Date) return 'time.Time';
  return 'map[string]interface {}';
}
