/**
 * Masks secrets as `***` in everything a playbook run writes (issue 14): streamed lines, results, errors.
 *
 * Each added secret is masked as it is and in the forms a script is likely to print it in: base64 (standard and
 * URL-safe, with or without padding), URL-encoded (`%20` or `+` for spaces) and escaped in a JSON string. Values under 3 characters are ignored:
 * they would mask ordinary text. A stream masker holds back at most (longest form - 1) characters, so a secret split
 * across chunks is still masked.
 */
export const SECRET_MASK = '***';

/** Secrets shorter than this are not masked. */
export const MIN_SECRET_LENGTH = 3;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The forms of one secret that are masked: itself, base64 and base64url without padding, URL-encoded, JSON-escaped. */
export function secretForms(value: string): string[] {
  const b64 = Buffer.from(value, 'utf8').toString('base64').replace(/=+$/, '');
  const uri = encodeURIComponent(value);
  const json = JSON.stringify(value).slice(1, -1);
  const forms = [value, b64, b64.replace(/\+/g, '-').replace(/\//g, '_'), uri, uri.replace(/%20/g, '+'), json];
  return [...new Set(forms)].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

export class SecretMasker {
  private readonly secrets = new Set<string>();
  /** Every form of every secret, longest first; rebuilt lazily after add(). */
  private forms: string[] = [];
  private pattern: RegExp | null = null;
  private dirty = false;

  /** Adds a secret value; empty and very short values are ignored (they would mask ordinary text). */
  add(value: string | undefined | null): void {
    if (!value || value.length < MIN_SECRET_LENGTH || this.secrets.has(value)) return;
    this.secrets.add(value);
    this.dirty = true;
  }

  /** How many secrets are known. */
  get size(): number {
    return this.secrets.size;
  }

  /** The text with every known secret replaced by `***`. */
  mask(text: string): string {
    const re = this.regex();
    return re ? text.replace(re, SECRET_MASK) : text;
  }

  /** Masks every string inside a JSON-like value (a result, an error object); keys are kept as they are. */
  maskDeep<T>(value: T): T {
    if (!this.regex()) return value;
    return this.deep(value) as T;
  }

  /**
   * A masker for one stream written in chunks: a secret split across two chunks is still masked. push() returns what
   * can be released now (holding back a tail that could begin a secret); end() releases the rest.
   */
  stream(): { push(chunk: string): string; end(): string } {
    let held = '';
    return {
      push: (chunk: string) => {
        const { out, rest } = this.maskHolding(held + chunk);
        held = rest;
        return out;
      },
      end: () => {
        const text = held;
        held = '';
        return this.mask(text);
      },
    };
  }

  private deep(value: unknown): unknown {
    if (typeof value === 'string') return this.mask(value);
    if (Array.isArray(value)) return value.map((v) => this.deep(v));
    if (value && typeof value === 'object' && !(value instanceof Date)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.deep(v)]));
    }
    return value;
  }

  private regex(): RegExp | null {
    if (this.dirty) {
      this.forms = [...new Set([...this.secrets].flatMap(secretForms))].sort((a, b) => b.length - a.length);
      this.pattern = this.forms.length ? new RegExp(this.forms.map(escapeRegExp).join('|'), 'g') : null;
      this.dirty = false;
    }
    return this.pattern;
  }

  /** Masks `text` except a tail that could be the start of a secret; that tail is returned unmasked, to prepend. */
  private maskHolding(text: string): { out: string; rest: string } {
    const re = this.regex();
    if (!re) return { out: text, rest: '' };
    let out = '';
    let last = 0;
    for (const m of text.matchAll(re)) {
      out += text.slice(last, m.index) + SECRET_MASK;
      last = m.index + m[0].length;
    }
    const hold = this.partialTail(text, last);
    return { out: out + text.slice(last, text.length - hold), rest: text.slice(text.length - hold) };
  }

  /** The length of the longest tail of text (starting at or after `from`) that is a proper prefix of a form. */
  private partialTail(text: string, from: number): number {
    const longest = this.forms[0]?.length ?? 0;
    const start = Math.max(from, text.length - longest + 1);
    for (let i = start; i < text.length; i++) {
      const tail = text.slice(i);
      if (this.forms.some((f) => f.length > tail.length && f.startsWith(tail))) return text.length - i;
    }
    return 0;
  }
}
