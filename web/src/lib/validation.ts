import { z } from 'zod';
import { parseDurationNs } from './format';

/** The spec's validation texts (000 §5, 001 §5), word for word. */
export const VALIDATION_MESSAGES = {
  required: 'This field is required',
  number: 'This field must be a number',
  durationMin: 'Duration must be greater than 1 minute',
  duration: 'Enter a duration such as 30s, 5m, 1h, 2d or 1w',
} as const;

const ONE_MINUTE_NS = 60e9;

/** A text that must not be blank ("This field is required"). */
export function requiredText() {
  return z.string().trim().min(1, VALIDATION_MESSAGES.required);
}

export interface NumberInputOptions {
  required?: boolean;
  min?: number;
  max?: number;
  integer?: boolean;
}

/**
 * A number typed into a text box: blank is `undefined` (or "This field is required"), anything not numeric is
 * "This field must be a number" (spec 001 §5). Accepts a number too, so stored values can seed the form.
 */
export function numberInput({ required, min, max, integer }: NumberInputOptions = {}) {
  return z
    .union([z.string(), z.number()])
    .optional()
    .transform((value, ctx): number | undefined => {
      const text = value === undefined ? '' : String(value).trim();
      if (text === '') {
        if (required) ctx.addIssue({ code: 'custom', message: VALIDATION_MESSAGES.required });
        return undefined;
      }
      const n = Number(text);
      if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) {
        ctx.addIssue({ code: 'custom', message: VALIDATION_MESSAGES.number });
        return z.NEVER;
      }
      if (min !== undefined && n < min) ctx.addIssue({ code: 'custom', message: `Must be at least ${min}` });
      if (max !== undefined && n > max) ctx.addIssue({ code: 'custom', message: `Must be at most ${max}` });
      return n;
    });
}

export interface DurationInputOptions {
  required?: boolean;
  /** Smallest allowed value in nanoseconds; default one minute (spec 001 §5). */
  minNs?: number;
}

/**
 * A duration typed as "5m", "1h30m", "2d" that the form stores in nanoseconds (spec 001 §5): blank is
 * "This field is required" when required, under a minute is "Duration must be greater than 1 minute".
 */
export function durationInput({ required, minNs = ONE_MINUTE_NS }: DurationInputOptions = {}) {
  return z
    .string()
    .optional()
    .transform((value, ctx): number | undefined => {
      const text = value?.trim() ?? '';
      if (!text) {
        if (required) ctx.addIssue({ code: 'custom', message: VALIDATION_MESSAGES.required });
        return undefined;
      }
      const ns = parseDurationNs(text);
      if (Number.isNaN(ns)) {
        ctx.addIssue({ code: 'custom', message: VALIDATION_MESSAGES.duration });
        return z.NEVER;
      }
      if (ns < minNs) ctx.addIssue({ code: 'custom', message: VALIDATION_MESSAGES.durationMin });
      return ns;
    });
}
