/**
 * A small JSON-to-YAML printer for the read-only Spec tab: plain scalars where YAML reads them back as strings,
 * JSON-quoted strings otherwise (JSON strings are valid YAML).
 */
export function toYaml(value: unknown, indent = 0): string {
  const pad = '  '.repeat(indent);
  if (Array.isArray(value)) {
    if (!value.length) return '[]';
    return value
      .map((v) => {
        const inner = toYaml(v, indent + 1);
        return isBlock(v) ? `${pad}-\n${inner}`.replace(`-\n${'  '.repeat(indent + 1)}`, '- ') : `${pad}- ${inner}`;
      })
      .join('\n');
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (!entries.length) return '{}';
    return entries
      .map(([k, v]) => (isBlock(v) ? `${pad}${key(k)}:\n${toYaml(v, indent + 1)}` : `${pad}${key(k)}: ${toYaml(v, indent + 1)}`))
      .join('\n');
  }
  return scalar(value);
}

function isBlock(v: unknown): boolean {
  return !!v && typeof v === 'object' && (Array.isArray(v) ? v.length > 0 : Object.keys(v).length > 0);
}

const PLAIN = /^[A-Za-z_/][\w ./@-]*$/;
const RESERVED = /^(true|false|yes|no|on|off|null|~)$/i;

function key(k: string): string {
  return PLAIN.test(k) && !RESERVED.test(k) ? k : JSON.stringify(k);
}

function scalar(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') {
    return PLAIN.test(v) && !RESERVED.test(v) && !v.endsWith(' ') ? v : JSON.stringify(v);
  }
  return String(v);
}
