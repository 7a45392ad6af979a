import { ApiError } from '../../../lib/errors.js';

// Casts a select may ask for (`col::text`). The SQL type emitted comes from this table, never from the request.
const CASTS: Readonly<Record<string, string>> = {
  text: 'text', varchar: 'varchar', 'character varying': 'varchar',
  int: 'integer', integer: 'integer', int4: 'integer', smallint: 'smallint', int2: 'smallint',
  bigint: 'bigint', int8: 'bigint', numeric: 'numeric', decimal: 'numeric',
  real: 'real', float4: 'real', 'double precision': 'double precision', float8: 'double precision',
  boolean: 'boolean', bool: 'boolean', json: 'json', jsonb: 'jsonb', uuid: 'uuid',
  date: 'date', time: 'time', timestamp: 'timestamp', timestamptz: 'timestamptz',
  'timestamp with time zone': 'timestamptz', interval: 'interval',
  'text[]': 'text[]', 'uuid[]': 'uuid[]', 'int[]': 'integer[]', 'integer[]': 'integer[]', 'bigint[]': 'bigint[]',
};
const EMBED_CASTS = new Set(['json', 'jsonb', 'text']);

/** The SQL type for a requested cast; an unknown name is a 400. */
export function castType(name: string, embed = false): string {
  const t = CASTS[name];
  if (!t || (embed && !EMBED_CASTS.has(t))) {
    throw new ApiError(400, '42704', `type "${name.slice(0, 60)}" is not allowed in a cast`, null,
      embed ? 'Embedded resources may be cast to json, jsonb or text.' : `Allowed casts: ${Object.keys(CASTS).join(', ')}`);
  }
  return t;
}
