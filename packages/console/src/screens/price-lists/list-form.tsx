/**
 * A price list's form (decision `price-lists`): name, type, the markets and customer groups it is
 * limited to, its dates, and its prices pasted as CSV and previewed line by line (resolved to
 * variants by SKU) before anything is sent: while a line is wrong nothing is saved. A saved list
 * shows its current prices; a paste replaces them. The server's refusals are shown at their fields,
 * a price's at its line.
 */
import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import type { CustomerGroup } from '../../data/customer-groups.ts';
import type { Market } from '../../data/markets.ts';
import { useSavePriceList, useVariantIndex, type PriceList } from '../../data/price-lists.ts';
import { ErrorBanner, Loading, ProblemBanner, SubmitCancel, TextField } from '../../ui/components.tsx';
import { fieldMessage, toFormProblem, unclaimed, type FormProblem } from '../../ui/problems.ts';
import { parsePriceLines, skusOf, type PriceLine } from './csv.ts';
import {
  checkPriceList,
  lineOfPrice,
  NAME_MAX,
  priceListDraft,
  priceListSave,
  type PriceListDraft,
} from './draft.ts';
import { DateFields, KindField, ScopeFields } from './list-fields.tsx';
import { CurrentPrices, PricesPaste } from './prices-paste.tsx';

const SHOWN = /^\/(name|startsAt|endsAt|prices)(\/|$)/;

/** The server's problems with prices, said at their lines ("Line 3 (TEE-S): …"). */
function withLines(problem: FormProblem, lines: readonly PriceLine[]): FormProblem {
  return {
    ...problem,
    fields: problem.fields.map((field) => {
      const line = lineOfPrice(field.pointer, lines);
      return line
        ? { pointer: '/prices', detail: `Line ${line.line} (${line.sku}): ${field.detail}.` }
        : field;
    }),
  };
}

export function PriceListForm({
  list,
  markets,
  groups,
  storeCurrency,
  onDone,
}: {
  /** The list to change, with its prices; null for a new one. */
  list: PriceList | null;
  markets: readonly Market[];
  groups: readonly CustomerGroup[];
  storeCurrency: string;
  onDone: (notice: string | null) => void;
}) {
  const titleId = useId();
  const form = useRef<HTMLFormElement>(null);
  const banner = useRef<HTMLDivElement>(null);
  const [draft, setDraft] = useState<PriceListDraft>(() => priceListDraft(list, storeCurrency));
  const index = useVariantIndex(
    useMemo(() => skusOf(draft.csv), [draft.csv]),
    useMemo(() => (list?.prices ?? []).map((price) => price.variantId), [list]),
  );
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const save = useSavePriceList((saved) =>
    onDone(
      list ? `The price list “${saved.name}” was saved.` : `The price list “${saved.name}” was created.`,
    ),
  );
  const bySku = index.data?.bySku;
  const lines = useMemo(
    () => (bySku ? parsePriceLines(draft.csv, draft.currency, bySku) : []),
    [draft.csv, draft.currency, bySku],
  );
  const currencies = [...new Set([storeCurrency, ...markets.map((market) => market.currency)])];

  useEffect(() => {
    form.current?.querySelector<HTMLInputElement>('input')?.focus();
  }, []);
  useEffect(() => {
    if (queued && !index.settling) submit();
  });
  useEffect(() => {
    if (problem)
      (form.current?.querySelector<HTMLElement>('[aria-invalid="true"]') ?? banner.current)?.focus();
  }, [problem]);

  const update = (changes: Partial<PriceListDraft>) => {
    setDraft((current) => ({ ...current, ...changes }));
    setProblem(null);
  };

  // Saving waits for the pasted SKUs' lookup: a click meanwhile is kept and carried out after it.
  const [queued, setQueued] = useState(false);
  function submit(event?: FormEvent) {
    event?.preventDefault();
    if (index.settling) return setQueued(true);
    setQueued(false);
    const local = checkPriceList(draft, lines, list);
    if (local) return setProblem(local);
    const call = priceListSave(draft, lines, list);
    if (!call) return onDone('Nothing changed.');
    save.mutate(call, { onError: (error) => setProblem(withLines(toFormProblem(error), lines)) });
  }

  const at = (pointer: string, name: string) => fieldMessage(problem, pointer, name);
  const pricesError = problem?.fields
    .filter((field) => field.pointer === '/prices' || field.pointer.startsWith('/prices/'))
    .map((field) => field.detail)
    .join(' ');
  return (
    <section className="panel orders-panel orders-form-panel price-list-form" aria-labelledby={titleId}>
      <h2 id={titleId}>{list ? `Change the price list “${list.name}”` : 'New price list'}</h2>
      <form ref={form} onSubmit={submit} noValidate>
        <div ref={banner} tabIndex={-1} className="banner-anchor">
          <ProblemBanner problem={problem} others={problem ? unclaimed(problem, (p) => SHOWN.test(p)) : []} />
        </div>
        <div className="orders-form-grid">
          <TextField
            label="Price list name"
            value={draft.name}
            maxLength={NAME_MAX}
            autoComplete="off"
            hint="For you, like “Summer sale” or “Wholesale prices”."
            error={at('/name', 'The name')}
            onChange={(event) => update({ name: event.target.value })}
          />
        </div>
        <KindField value={draft.kind} onChange={(kind) => update({ kind })} />
        <ScopeFields draft={draft} markets={markets} groups={groups} update={update} />
        <DateFields draft={draft} at={at} update={update} />
        {list ? (
          <section aria-labelledby={`${titleId}-current`}>
            <h3 id={`${titleId}-current`}>Current prices ({list.prices.length})</h3>
            <CurrentPrices prices={list.prices} index={index.data} />
          </section>
        ) : null}
        {index.isError ? <ErrorBanner error={index.error} onRetry={() => void index.refetch()} /> : null}
        {index.data ? (
          <PricesPaste
            draft={draft}
            lines={lines}
            currencies={currencies}
            editing={list !== null}
            error={pricesError || undefined}
            update={update}
          />
        ) : index.isPending ? (
          <Loading label="Finding the list’s variants…" />
        ) : null}
        <SubmitCancel
          className="actions form-actions"
          label={list ? 'Save price list' : 'Create price list'}
          busyLabel={queued ? 'Checking the SKUs…' : 'Saving…'}
          busy={save.isPending || queued || !index.data}
          onCancel={() => onDone(null)}
        />
      </form>
    </section>
  );
}
