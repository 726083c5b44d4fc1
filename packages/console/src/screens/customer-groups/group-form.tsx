/**
 * A customer group's form: its name, unique in the store whatever its case. The form checks the
 * name before sending; the server's refusals (a name another group has, 409
 * `customer_group_exists`) are shown at the field.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useSaveCustomerGroup, type CustomerGroup } from '../../data/customer-groups.ts';
import { ProblemBanner, SubmitCancel, TextField } from '../../ui/components.tsx';
import { isStatus, localProblem, toFormProblem, unclaimed, type FormProblem } from '../../ui/problems.ts';

export const GROUP_NAME_MAX = 100;

export function GroupForm({
  group,
  onDone,
}: {
  /** The group to rename; null for a new one. */
  group: CustomerGroup | null;
  /** After a save (with what to say), or on Cancel (null). */
  onDone: (notice: string | null) => void;
}) {
  const titleId = useId();
  const form = useRef<HTMLFormElement>(null);
  const [name, setName] = useState(group?.name ?? '');
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const save = useSaveCustomerGroup((saved) =>
    onDone(group ? `The group “${saved.name}” was renamed.` : `The group “${saved.name}” was created.`),
  );

  useEffect(() => {
    form.current?.querySelector<HTMLInputElement>('input')?.focus();
  }, [problem]);

  function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = name.trim();
    if (trimmed === '')
      return setProblem(
        localProblem('The group needs a name.', [
          { pointer: '/name', detail: 'Enter a name, like “Wholesale”.' },
        ]),
      );
    if (trimmed.length > GROUP_NAME_MAX)
      return setProblem(
        localProblem('The name is too long.', [
          { pointer: '/name', detail: `Use at most ${GROUP_NAME_MAX} characters.` },
        ]),
      );
    if (group && trimmed === group.name) return onDone('Nothing changed.');
    save.mutate(
      { id: group?.id ?? null, name: trimmed },
      {
        onError: (error) => {
          const found = toFormProblem(error);
          setProblem(
            isStatus(error, 409)
              ? { ...found, fields: [{ pointer: '/name', detail: `Another group is called “${trimmed}”.` }] }
              : found,
          );
        },
      },
    );
  }

  const nameError = problem?.fields.find((field) => field.pointer === '/name')?.detail;
  return (
    <section className="panel orders-panel orders-form-panel" aria-labelledby={titleId}>
      <h2 id={titleId}>{group ? `Rename the group “${group.name}”` : 'New customer group'}</h2>
      <form ref={form} onSubmit={submit} noValidate>
        <ProblemBanner
          problem={problem}
          others={problem ? unclaimed(problem, (pointer) => pointer === '/name') : []}
        />
        <div className="orders-form-grid">
          <TextField
            label="Group name"
            value={name}
            maxLength={GROUP_NAME_MAX}
            autoComplete="off"
            hint="Like “Wholesale” or “VIP”. Price lists can be limited to it."
            error={nameError}
            onChange={(event) => {
              setName(event.target.value);
              setProblem(null);
            }}
          />
        </div>
        <SubmitCancel
          className="actions form-actions"
          label={group ? 'Save name' : 'Create group'}
          busyLabel="Saving…"
          busy={save.isPending}
          onCancel={() => onDone(null)}
        />
      </form>
    </section>
  );
}
