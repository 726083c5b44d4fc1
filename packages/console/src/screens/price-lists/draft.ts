/**
 * A price list's form as typed (decision `price-lists`), what the form checks before sending (a
 * name, an end after the start, every pasted line ready), the API's body (a new list, or a saved
 * one's changes: a paste replaces its prices, an empty box keeps them), and a list's status. No
 * React here.
 */
import type {
  PriceList,
  PriceListKind,
  PriceListPatch,
  PriceListSave,
  PriceListSummary,
} from '../../data/price-lists.ts';
import { periodStatus, type PeriodStatus } from '../../ui/dates.ts';
import { localProblem, type FieldMessage, type FormProblem } from '../../ui/problems.ts';
import { localInputToIso, toLocalInput } from '../integrations-parts.tsx';
import type { PriceLine } from './csv.ts';

export interface PriceListDraft {
  name: string;
  kind: PriceListKind;
  marketIds: string[];
  customerGroupIds: string[];
  /** `datetime-local` values in the browser's time zone; empty: none. */
  startsAt: string;
  endsAt: string;
  /** The currency of pasted lines that name none. */
  currency: string;
  /** The pasted CSV; empty when editing: the list's prices are kept. */
  csv: string;
}

export const NAME_MAX = 100;

export function priceListDraft(list: PriceList | null, storeCurrency: string): PriceListDraft {
  return {
    name: list?.name ?? '',
    kind: list?.kind ?? 'sale',
    marketIds: list?.marketIds ?? [],
    customerGroupIds: list?.customerGroupIds ?? [],
    startsAt: list?.startsAt ? toLocalInput(new Date(list.startsAt)) : '',
    endsAt: list?.endsAt ? toLocalInput(new Date(list.endsAt)) : '',
    currency: storeCurrency,
    csv: '',
  };
}

/** What the form can tell before sending; the pasted lines' own problems are shown in their table. */
export function checkPriceList(
  draft: PriceListDraft,
  lines: readonly PriceLine[],
  list: PriceList | null,
): FormProblem | null {
  const fields: FieldMessage[] = [];
  const name = draft.name.trim();
  if (name === '') fields.push({ pointer: '/name', detail: 'Enter a name, like “Summer sale”.' });
  else if (name.length > NAME_MAX)
    fields.push({ pointer: '/name', detail: `Use at most ${NAME_MAX} characters.` });
  const starts = localInputToIso(draft.startsAt);
  const ends = localInputToIso(draft.endsAt);
  if (starts && ends && Date.parse(ends) <= Date.parse(starts))
    fields.push({ pointer: '/endsAt', detail: 'The end must come after the start.' });
  const bad = lines.filter((line) => line.problem !== null).length;
  if (bad > 0)
    fields.push({
      pointer: '/prices',
      detail: `${bad} ${bad === 1 ? 'line needs' : 'lines need'} fixing (marked in the table below): nothing is saved until every line is ready.`,
    });
  else if (lines.length === 0 && !list)
    fields.push({ pointer: '/prices', detail: 'Paste at least one line: SKU, price.' });
  return fields.length > 0 ? localProblem('Some fields need your attention.', fields) : null;
}

const sameIds = (a: readonly string[], b: readonly string[]) => [...a].sort().join() === [...b].sort().join();

/** The lines' prices as the API takes them (every line ready). */
const pricesOf = (lines: readonly PriceLine[]) =>
  lines.map((line) => ({ variantId: line.variant!.id, currency: line.currency, amount: line.amount! }));

/** The call that saves the form: a new list, or what changed of a saved one (null: nothing). */
export function priceListSave(
  draft: PriceListDraft,
  lines: readonly PriceLine[],
  list: PriceList | null,
): PriceListSave | null {
  const name = draft.name.trim();
  const startsAt = localInputToIso(draft.startsAt);
  const endsAt = localInputToIso(draft.endsAt);
  if (!list) {
    return {
      id: null,
      body: {
        name,
        kind: draft.kind,
        marketIds: draft.marketIds,
        customerGroupIds: draft.customerGroupIds,
        startsAt,
        endsAt,
        prices: pricesOf(lines),
      },
    };
  }
  const body: PriceListPatch = {};
  if (name !== list.name) body.name = name;
  if (draft.kind !== list.kind) body.kind = draft.kind;
  if (!sameIds(draft.marketIds, list.marketIds)) body.marketIds = draft.marketIds;
  if (!sameIds(draft.customerGroupIds, list.customerGroupIds)) body.customerGroupIds = draft.customerGroupIds;
  const sameTime = (a: string | null, b: string | null) =>
    a && b ? Date.parse(a) === Date.parse(b) : a === b;
  // The form shows minutes: a saved time with seconds is kept unless the field was changed.
  const shown = (iso: string | null) => (iso ? toLocalInput(new Date(iso)) : '');
  if (draft.startsAt !== shown(list.startsAt) && !sameTime(startsAt, list.startsAt)) body.startsAt = startsAt;
  if (draft.endsAt !== shown(list.endsAt) && !sameTime(endsAt, list.endsAt)) body.endsAt = endsAt;
  if (lines.length > 0) body.prices = pricesOf(lines);
  return Object.keys(body).length > 0 ? { id: list.id, body } : null;
}

/** Whether a list is in force now, starts later, or has ended. */
export const priceListStatus = (list: PriceListSummary, now = Date.now()): PeriodStatus =>
  periodStatus(list, now);

/**
 * The line a server's field error under `/prices/<i>` is about: the request's prices are the ready
 * lines in order.
 */
export function lineOfPrice(pointer: string, lines: readonly PriceLine[]): PriceLine | undefined {
  const match = /^\/prices\/(\d+)/.exec(pointer);
  return match ? lines[Number(match[1])] : undefined;
}
