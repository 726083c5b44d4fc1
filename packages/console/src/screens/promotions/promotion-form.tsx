/**
 * A promotion's form (decision `promotions-resource`): its name, a code or automatic, what it takes
 * off, its conditions, what it combines with, its dates and limits, and its rule in plain words,
 * said again at every change (summary.ts). The form checks what it needs to build the body; the
 * server's refusals are shown at their fields (`/action/value`, `/code`, …), the rest in the banner.
 */
import { useId, useState, type FormEvent } from 'react';
import type { CustomerGroup } from '../../data/customer-groups.ts';
import type { Market } from '../../data/markets.ts';
import { useProductTitles } from '../../data/products.ts';
import { useSavePromotion, type Promotion } from '../../data/promotions.ts';
import { ProblemBanner, SubmitCancel, TextField } from '../../ui/components.tsx';
import { fieldMessage, isStatus, toFormProblem, unclaimed } from '../../ui/problems.ts';
import { useFormDraft, useFormFocus } from '../../ui/form-state.ts';
import { ActionFields, BuyGetFields, CodeFields } from './action-fields.tsx';
import { ConditionFields, LimitFields } from './condition-fields.tsx';
import {
  checkPromotion,
  draftRule,
  NAME_MAX,
  promotionDraft,
  promotionSave,
  type PromotionDraft,
} from './draft.ts';
import { promotionSummary } from './summary.ts';

const SHOWN =
  /^\/(name|code|automatic|action\/(value|target|buy|get)|conditions|startsAt|endsAt|usageLimit|perCustomerLimit)(\/|$)/;

/** The names the summary says: the store's collections, groups and markets, the products read. */
export interface Lookups {
  currency: string;
  collections: readonly { id: string; title: string }[];
  groups: readonly CustomerGroup[];
  markets: readonly Market[];
}

export function PromotionForm({
  promotion,
  lookups,
  onDone,
}: {
  /** The promotion to change; null for a new one. */
  promotion: Promotion | null;
  lookups: Lookups;
  /** After a save (with what to say), or on Cancel (null). */
  onDone: (notice: string | null) => void;
}) {
  const titleId = useId();
  const { draft, update, problem, setProblem } = useFormDraft<PromotionDraft>(() =>
    promotionDraft(promotion),
  );
  const { form, banner } = useFormFocus(problem);
  const [amountProblem, setAmountProblem] = useState<string | null>(null);
  const titles = useProductTitles([
    ...draft.matching.productIds,
    ...draft.buy.productIds,
    ...draft.get.productIds,
  ]);
  const save = useSavePromotion((saved) =>
    onDone(
      promotion ? `The promotion “${saved.name}” was saved.` : `The promotion “${saved.name}” was created.`,
    ),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    const local = checkPromotion(draft, draft.kind === 'amount' ? amountProblem : null);
    if (local) return setProblem(local);
    const call = promotionSave(draft, promotion);
    if (!call) return onDone('Nothing changed.');
    save.mutate(call, {
      onError: (error) => {
        const found = toFormProblem(error);
        // A taken code (409): the server's sentence names it, at the code.
        if (isStatus(error, 409))
          found.fields = found.fields.map((field) =>
            field.pointer === '/code' ? { ...field, detail: found.message } : field,
          );
        setProblem(found);
      },
    });
  }

  const at = (pointer: string, name: string) => fieldMessage(problem, pointer, name);
  const summary = promotionSummary(draftRule(draft), {
    currency: lookups.currency,
    product: (id) => titles.get(id) ?? undefined,
    collection: (id) => lookups.collections.find((each) => each.id === id)?.title,
    group: (id) => lookups.groups.find((each) => each.id === id)?.name,
    market: (id) => lookups.markets.find((each) => each.id === id)?.name,
  });
  const fields = { draft, update, at };
  return (
    <section className="panel orders-panel orders-form-panel promotion-form" aria-labelledby={titleId}>
      <h2 id={titleId}>{promotion ? `Change the promotion “${promotion.name}”` : 'New promotion'}</h2>
      <form ref={form} onSubmit={submit} noValidate>
        <div ref={banner} tabIndex={-1} className="banner-anchor">
          <ProblemBanner problem={problem} others={problem ? unclaimed(problem, (p) => SHOWN.test(p)) : []} />
        </div>
        <div className="orders-form-grid">
          <TextField
            label="Promotion name"
            value={draft.name}
            maxLength={NAME_MAX}
            autoComplete="off"
            hint="Buyers see it on their cart, like “Summer: 25 % off”."
            error={at('/name', 'The name')}
            onChange={(event) => update({ name: event.target.value })}
          />
        </div>
        <CodeFields {...fields} />
        <ActionFields {...fields} currency={lookups.currency} onAmountProblem={setAmountProblem} />
        {draft.kind === 'buy_x_get_y' ? (
          <BuyGetFields {...fields} collections={lookups.collections} titles={titles} />
        ) : null}
        <ConditionFields {...fields} {...lookups} titles={titles} />
        <LimitFields {...fields} />
        <div className="promotion-summary-box">
          <h3 id={`${titleId}-summary`}>In plain words</h3>
          <p className="promotion-summary" id={`${titleId}-summary-text`} data-testid="promotion-summary">
            {summary}
          </p>
        </div>
        <SubmitCancel
          className="actions form-actions"
          label={promotion ? 'Save promotion' : 'Create promotion'}
          busyLabel="Saving…"
          busy={save.isPending}
          describedBy={`${titleId}-summary-text`}
          onCancel={() => onDone(null)}
        />
      </form>
    </section>
  );
}
