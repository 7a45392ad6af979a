import { parse, stringify } from 'yaml';

type Spec = Record<string, unknown>;

/** The Code tab's text of a spec; an empty spec is an empty editor. */
export const specToYaml = (spec: Spec): string => (Object.keys(spec).length ? stringify(spec, { lineWidth: 0 }) : '');

/** Spec 001 §5: the spec must parse as YAML into an object. */
export function yamlToSpec(text: string): { spec: Spec } | { error: string } {
  let v: unknown;
  try {
    v = text.trim() ? parse(text) : {};
  } catch (err) {
    return { error: `The spec is not valid YAML: ${(err as Error).message.split('\n')[0]}` };
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { error: 'The spec must be a YAML object (key: value lines)' };
  return { spec: v as Spec };
}

/** The Form's label rows as the labels column: rows without a key are left out. */
export const labelsOf = (f: { labels: { key: string; value: string }[] }): Record<string, string> =>
  Object.fromEntries(f.labels.filter((l) => l.key).map((l) => [l.key, l.value]));
