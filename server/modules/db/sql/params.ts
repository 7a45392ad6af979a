/**
 * The one identifier quoting helper. Callers pass names taken from the schema cache or the registry only; request
 * text reaches SQL exclusively as bound parameters (see Params).
 */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Collects bound values and hands out their `$n` placeholders. */
export class Params {
  readonly values: unknown[] = [];
  private readonly keys = new Map<string, string>();

  /** A placeholder for a value whose type PostgreSQL infers from its context. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** A text placeholder, shared by equal strings (JSON keys repeat on every object of a tree). */
  text(value: string): string {
    let p = this.keys.get(value);
    if (!p) this.keys.set(value, (p = `${this.add(value)}::text`));
    return p;
  }
}
