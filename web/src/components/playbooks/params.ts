import { z } from 'zod';
import { parse as parseYaml } from 'yaml';
import { parseDurationNs } from '../../lib/format';
import { VALIDATION_MESSAGES } from '../../lib/validation';
import type { PlaybookParameter } from './api';

/**
 * The run dialog's form model: one form value per parameter (keyed `p0`, `p1`… since a parameter's name may hold dots
 * that react-hook-form reads as paths), validated by a zod schema built from the parameters, and turned back into the
 * `{name: "string"}` map `POST /api/playbook/run` takes.
 */

export type ParamType =
  | 'text' | 'checkbox' | 'list' | 'people' | 'team' | 'check' | 'config' | 'component'
  | 'code' | 'secret' | 'millicores' | 'bytes' | 'duration';

const TYPES: ParamType[] = ['text', 'checkbox', 'list', 'people', 'team', 'check', 'config', 'component', 'code', 'secret', 'millicores', 'bytes', 'duration'];

export const paramType = (p: PlaybookParameter): ParamType => (TYPES.includes(p.type as ParamType) ? (p.type as ParamType) : 'text');

export const BYTE_UNITS = ['Mi', 'Gi', 'Ti'] as const;
export type ByteUnit = (typeof BYTE_UNITS)[number];

/** dns1123 (spec 000 §5): lowercase alphanumerics, hyphens and dots, starting and ending alphanumeric. */
export const DNS1123 = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;

export const paramKey = (i: number) => `p${i}`;
export const unitKey = (i: number) => `p${i}_unit`;

export type ParamValues = Record<string, string | boolean>;

const prop = (p: PlaybookParameter, key: string): unknown => p.properties?.[key];
const numProp = (p: PlaybookParameter, key: string): number | undefined => {
  const v = prop(p, key);
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
};
const truthy = (v: unknown) => v === true || v === 'true';

export const isMultiline = (p: PlaybookParameter) => truthy(prop(p, 'multiline'));

/**
 * The code parameter's language, lower-cased: free-form as the reference's (Monaco's id, e.g. `shell`), `yaml` when
 * none is given (`yml` read as `yaml`). Only `json` and `yaml` are checked.
 */
export const codeLanguage = (p: PlaybookParameter): string => {
  const raw = prop(p, 'language') ?? prop(p, 'format');
  const lang = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  return !lang || lang === 'yml' ? 'yaml' : lang;
};
/** Whether the code field's text is parsed (JSON or YAML) before the run. */
export const isCheckedLanguage = (language: string): language is 'json' | 'yaml' => language === 'json' || language === 'yaml';
/** The code field's hint: JSON, YAML, or the language as given. */
export const languageLabel = (language: string): string =>
  language === 'json' ? 'JSON' : language === 'yaml' ? 'YAML' : language;

/** A list parameter's options: `properties.options` as `[{label, value}]` or plain strings. */
export function listOptions(p: PlaybookParameter): { value: string; label: string }[] {
  const raw = prop(p, 'options');
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((o) => {
    if (typeof o === 'string' || typeof o === 'number') return [{ value: String(o), label: String(o) }];
    if (o && typeof o === 'object') {
      const r = o as Record<string, unknown>;
      const value = String(r.value ?? r.label ?? '');
      return value ? [{ value, label: String(r.label ?? value) }] : [];
    }
    return [];
  });
}

/** A duration parameter's suggestions (`properties.options`): any duration within min/max is taken. */
export const durationOptions = (p: PlaybookParameter): string[] => listOptions(p).map((o) => o.value);

/** A duration bound (`properties.min`/`max`, e.g. `5m`) as nanoseconds with its text; a bare 0 is zero. */
function durationBound(p: PlaybookParameter, key: 'min' | 'max'): { ns: number; text: string } | undefined {
  const v = prop(p, key);
  if (v === 0 || v === '0') return { ns: 0, text: '0' };
  if (typeof v !== 'string') return undefined;
  const ns = parseDurationNs(v);
  return Number.isFinite(ns) ? { ns, text: v.trim() } : undefined;
}

/** Splits `512Mi` into its number and unit (Gi when the default has none). */
export function splitBytes(v: string): { amount: string; unit: ByteUnit } {
  const m = /^\s*([\d.]+)\s*(Mi|Gi|Ti)?\s*$/.exec(v);
  if (!m) return { amount: v, unit: 'Gi' };
  return { amount: m[1], unit: (m[2] as ByteUnit | undefined) ?? 'Gi' };
}

const asText = (v: unknown): string => {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v, null, 2);
};

/** The form's starting values: each parameter's default (or the one given, for a re-run), typed for its field. */
export function initialValues(params: PlaybookParameter[], given: Record<string, unknown> = {}): ParamValues {
  const out: ParamValues = {};
  params.forEach((p, i) => {
    const v = p.name in given ? given[p.name] : p.default;
    const type = paramType(p);
    if (type === 'checkbox') out[paramKey(i)] = truthy(v);
    else if (type === 'bytes') {
      const { amount, unit } = splitBytes(asText(v));
      out[paramKey(i)] = amount;
      out[unitKey(i)] = unit;
    } else if (type === 'millicores') out[paramKey(i)] = asText(v).replace(/m$/, '');
    else out[paramKey(i)] = asText(v);
  });
  return out;
}

function textRules(p: PlaybookParameter) {
  const minLength = numProp(p, 'minLength');
  const maxLength = numProp(p, 'maxLength');
  const min = numProp(p, 'min');
  const max = numProp(p, 'max');
  const regex = prop(p, 'regex');
  const dns = String(prop(p, 'format') ?? '').toLowerCase() === 'dns1123';
  return (v: string, fail: (message: string) => void) => {
    if (minLength !== undefined && v.length < minLength) fail(`Must be at least ${minLength} characters`);
    else if (maxLength !== undefined && v.length > maxLength) fail(`Must be at most ${maxLength} characters`);
    if (min !== undefined || max !== undefined) {
      const n = Number(v);
      if (!Number.isFinite(n)) fail(VALIDATION_MESSAGES.number);
      else if (min !== undefined && n < min) fail(`Must be at least ${min}`);
      else if (max !== undefined && n > max) fail(`Must be at most ${max}`);
    }
    if (typeof regex === 'string' && regex) {
      let re: RegExp | null = null;
      try {
        re = new RegExp(regex);
      } catch {
        re = null;
      }
      if (re && !re.test(v)) fail(`Must match ${regex}`);
    }
    if (dns && !DNS1123.test(v)) fail('Only lowercase letters, digits, hyphens and dots, starting and ending with a letter or digit');
  };
}

/** One parameter's value check. */
function fieldSchema(p: PlaybookParameter): z.ZodType<string | boolean> {
  const type = paramType(p);
  if (type === 'checkbox') return z.boolean();
  const required = !!p.required;
  const blank = (v: string) => v.trim() === '';
  const text = type === 'text' || type === 'secret' ? textRules(p) : null;
  const minDuration = type === 'duration' ? durationBound(p, 'min') : undefined;
  const maxDuration = type === 'duration' ? durationBound(p, 'max') : undefined;
  return z.string().superRefine((v, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
    if (blank(v)) {
      if (required) fail(VALIDATION_MESSAGES.required);
      return;
    }
    if (text) text(v, fail);
    else if (type === 'millicores' || type === 'bytes') {
      if (!/^\d+(\.\d+)?$/.test(v.trim()) || Number(v) <= 0) fail('Enter a positive number');
      else if (type === 'millicores' && !Number.isInteger(Number(v))) fail('Millicores are whole numbers');
    } else if (type === 'duration') {
      // options are suggestions only: any duration within min/max is taken
      const ns = parseDurationNs(v);
      if (!Number.isFinite(ns)) fail(VALIDATION_MESSAGES.duration);
      else if (minDuration && ns < minDuration.ns) fail(`Must be at least ${minDuration.text}`);
      else if (maxDuration && ns > maxDuration.ns) fail(`Must be at most ${maxDuration.text}`);
    } else if (type === 'code') {
      const language = codeLanguage(p);
      if (!isCheckedLanguage(language)) return;
      try {
        if (language === 'json') JSON.parse(v);
        else parseYaml(v);
      } catch (err) {
        fail(`Not valid ${languageLabel(language)}: ${(err as Error).message.split('\n')[0]}`);
      }
    } else if (type === 'list') {
      const options = listOptions(p);
      if (options.length && !options.some((o) => o.value === v)) fail('Choose one of the options');
    }
  });
}

/** The form's schema: every parameter's check, plus the bytes units. */
export function paramsSchema(params: PlaybookParameter[]) {
  const shape: Record<string, z.ZodType<string | boolean>> = {};
  params.forEach((p, i) => {
    shape[paramKey(i)] = fieldSchema(p);
    if (paramType(p) === 'bytes') shape[unitKey(i)] = z.enum(BYTE_UNITS);
  });
  return z.object(shape);
}

/** The values as the run takes them: strings by parameter name; blank optional ones left out. */
export function toRunParams(params: PlaybookParameter[], values: ParamValues): Record<string, string> {
  const out: Record<string, string> = {};
  params.forEach((p, i) => {
    const v = values[paramKey(i)];
    const type = paramType(p);
    if (type === 'checkbox') {
      out[p.name] = v ? 'true' : 'false';
      return;
    }
    const text = typeof v === 'string' ? v : '';
    if (text.trim() === '') return;
    if (type === 'bytes') out[p.name] = `${text.trim()}${String(values[unitKey(i)] ?? 'Gi')}`;
    else if (type === 'millicores') out[p.name] = `${text.trim()}m`;
    else out[p.name] = type === 'code' || type === 'secret' || isMultiline(p) ? text : text.trim();
  });
  return out;
}
