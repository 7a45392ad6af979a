type Json = unknown;
const isObj = (v: Json): v is Record<string, Json> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * RFC 7386: the merge patch that turns `from` into `to` (removed keys become null; arrays are replaced whole). Used for
 * console edits of custom resources and for the catalog's `diff` changes (the patch from the new config back to the
 * previous one, as config-db stores it).
 */
export function mergePatchBetween(from: Json, to: Json): Json {
  if (!isObj(from) || !isObj(to)) return to;
  const out: Record<string, Json> = {};
  for (const k of Object.keys(from)) if (!(k in to)) out[k] = null;
  for (const [k, v] of Object.entries(to)) {
    if (!(k in from)) out[k] = v;
    else if (JSON.stringify(from[k]) !== JSON.stringify(v)) out[k] = mergePatchBetween(from[k], v);
  }
  return out;
}
