import { z } from 'zod';

/**
 * A value the reference lets a playbook action read from a Secret or ConfigMap (duty's EnvVar): a plain string, or
 * `{ value }` / `{ valueFrom: { secretKeyRef | configMapKeyRef: { name, key } } }`. Resolved right before the action
 * runs; what a Secret holds is then masked in everything the run reports.
 */
export const ActionEnvVar = z.union([
  z.string(),
  z.object({
    name: z.string().optional(),
    value: z.string().optional(),
    valueFrom: z.object({
      secretKeyRef: z.object({ name: z.string().min(1), key: z.string().min(1) }).loose().optional(),
      configMapKeyRef: z.object({ name: z.string().min(1), key: z.string().min(1) }).loose().optional(),
    }).strict().optional(),
  }).loose(),
]);
export type ActionEnvVar = z.infer<typeof ActionEnvVar>;

/** A number, or a template that renders to one (`'{{ .params.lines }}'`). */
export const NumberOrTemplate = z.union([z.number().int().min(0), z.string().min(1)]);

const TEMPLATE = /\{\{|\$\(/;

/**
 * A string `ok` accepts, or one holding a template (`{{ .params.x }}`, `$(.params.x)`) that is checked once rendered,
 * when the action runs; `message` names what is expected.
 */
export const templatedString = (ok: (v: string) => boolean, message: string) =>
  z.string().refine((v) => TEMPLATE.test(v) || ok(v), { message });
