/**
 * Masks secrets as `***` in everything a playbook run writes (issue 14): streamed lines, results, errors.
 * INTERFACE FIRST: the exec/masking part completes it (chunk boundaries, minimum lengths, encodings), keeping these
 * signatures.
 */
export const SECRET_MASK = '***';

export class SecretMasker {
  private readonly secrets = new Set<string>();

  /** Adds a secret value; empty and very short values are ignored (they would mask ordinary text). */
  add(value: string | undefined | null): void {
    if (value && value.length >= 3) this.secrets.add(value);
  }

  /** The text with every known secret replaced by `***`. */
  mask(text: string): string {
    let out = text;
    for (const s of [...this.secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join(SECRET_MASK);
    return out;
  }

  /** Masks every string inside a JSON-like value (a result, an error object). */
  maskDeep<T>(value: T): T {
    if (typeof value === 'string') return this.mask(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.maskDeep(v)) as T;
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.maskDeep(v)])) as T;
    }
    return value;
  }

  /**
   * A masker for one stream written in chunks: a secret split across two chunks is still masked. push() returns what
   * can be released now (holding back a tail that could begin a secret); end() releases the rest.
   */
  stream(): { push(chunk: string): string; end(): string } {
    let held = '';
    return {
      push: (chunk: string) => {
        const text = held + chunk;
        held = '';
        return this.mask(text);
      },
      end: () => this.mask(held),
    };
  }
}
