import { useEffect, useRef, useState } from 'react';
import type { FormProblem } from './problems.ts';

/**
 * The focus of a form panel: its first field when it opens, and after a refusal the first field
 * marked invalid (else the banner that says what is wrong), once the render has marked them.
 */
export function useFormFocus(problem: FormProblem | null) {
  const form = useRef<HTMLFormElement>(null);
  const banner = useRef<HTMLDivElement>(null);
  useEffect(() => {
    form.current?.querySelector<HTMLInputElement>('input')?.focus();
  }, []);
  useEffect(() => {
    if (problem)
      (form.current?.querySelector<HTMLElement>('[aria-invalid="true"]') ?? banner.current)?.focus();
  }, [problem]);
  return { form, banner };
}

/**
 * A form's draft and the problem shown with it: `update` merges a change into the draft and clears
 * the problem (what was wrong is being fixed), `setProblem` shows a refusal.
 */
export function useFormDraft<D extends object>(initial: () => D) {
  const [draft, setDraft] = useState<D>(initial);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const update = (changes: Partial<D>) => {
    setDraft((current) => ({ ...current, ...changes }));
    setProblem(null);
  };
  return { draft, update, problem, setProblem };
}
