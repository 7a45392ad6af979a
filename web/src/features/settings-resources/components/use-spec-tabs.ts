import { useRef, useState } from 'react';
import type { FieldValues, Path, PathValue, UseFormReturn } from 'react-hook-form';
import { specToYaml, yamlToSpec } from '../spec-yaml';
import type { SpecTab } from './spec-editor-frame';

type Spec = Record<string, unknown>;

/** How a kind's Form maps onto its spec (canary: HTTP and TCP checks; scraper: its types' first entries). */
export interface FormSpecModel<T extends FieldValues> {
  /** The spec with the Form's values written in (what the Form does not edit is kept). */
  merge: (spec: Spec, values: T) => Spec;
  /** The Form's values a spec gives, for the fields the Form takes from the spec. */
  fromSpec: (spec: Spec) => Partial<T>;
}

/**
 * The Form and Code tabs over one spec: `base` is the spec as last synced from either tab. Going to Code writes the
 * Form into it as YAML; going to Form reads the YAML back (a YAML that is not an object stays on Code, said in
 * `problems`).
 */
export function useSpecTabs<T extends FieldValues>(form: UseFormReturn<T>, start: Spec, model: FormSpecModel<T>, firstTab: SpecTab = 'form') {
  const base = useRef<Spec>(start);
  const [tab, setTab] = useState<SpecTab>(firstTab);
  const [yaml, setYaml] = useState(() => specToYaml(start));
  const [problems, setProblems] = useState<string[]>([]);
  const switchTab = (next: SpecTab) => {
    if (next === 'code') {
      base.current = model.merge(base.current, form.getValues());
      setYaml(specToYaml(base.current));
    } else {
      const parsed = yamlToSpec(yaml);
      if ('error' in parsed) return setProblems([parsed.error]);
      base.current = parsed.spec;
      const opts = { shouldDirty: true, shouldValidate: form.formState.isSubmitted };
      for (const [key, value] of Object.entries(model.fromSpec(parsed.spec))) form.setValue(key as Path<T>, value as PathValue<T, Path<T>>, opts);
    }
    setProblems([]);
    setTab(next);
  };
  return { base, tab, yaml, setYaml, problems, setProblems, switchTab };
}
