/**
 * The frame of the Shipping screen's zone and method forms: a panel with the form's title, its
 * problem (a banner listing what no field shows), the fields, then Save and Cancel. The first field
 * is focused when the form opens; on a new problem, its first invalid field, else the banner.
 */
import { useId, type ReactNode } from 'react';
import { ProblemBanner, SubmitCancel } from '../../ui/components.tsx';
import { unclaimed, type FormProblem } from '../../ui/problems.ts';
import { useFormFocus } from '../../ui/form-state.ts';

export function FormPanel({
  title,
  intro,
  problem,
  shown,
  submitLabel,
  busy,
  onSubmit,
  onCancel,
  children,
}: {
  title: string;
  /** A note under the title. */
  intro?: ReactNode;
  problem: FormProblem | null;
  /** Whether a field of the form shows the message of this pointer. */
  shown: (pointer: string) => boolean;
  submitLabel: string;
  /** While saving: the Save button is disabled and says so. */
  busy: boolean;
  onSubmit: () => void;
  onCancel: () => void;
  children: ReactNode;
}) {
  const titleId = useId();
  const { form, banner } = useFormFocus(problem);

  return (
    <section className="panel shipping-form" aria-labelledby={titleId}>
      <h3 id={titleId}>{title}</h3>
      {intro}
      <form
        ref={form}
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit();
        }}
      >
        <div ref={banner} tabIndex={-1} className="banner-anchor">
          <ProblemBanner problem={problem} others={problem ? unclaimed(problem, shown) : []} />
        </div>
        {children}
        <SubmitCancel
          className="actions form-actions"
          label={submitLabel}
          busyLabel="Saving…"
          busy={busy}
          onCancel={onCancel}
        />
      </form>
    </section>
  );
}
