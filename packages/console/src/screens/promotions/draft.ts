/**
 * A promotion's form as typed (decision `promotions-resource`): the draft, the rule it says so far
 * (for the live summary), what the form checks before sending (what it needs to build the body: a
 * name, a code unless automatic, numbers that read; the ranges are the server's, shown at their
 * fields), and the API's body: a new promotion, or a saved one's changes (`conditions`, `action` and
 * `combinesWith` sent whole when they changed). No React here.
 */
import type {
  NewPromotionBody,
  Promotion,
  PromotionAction,
  PromotionActionKind,
  PromotionCombinesWith,
  PromotionConditions,
  PromotionPatch,
  PromotionSave,
} from '../../data/promotions.ts';
import { decimalToMinor } from '../../ui/money.ts';
import { localProblem, type FieldMessage, type FormProblem } from '../../ui/problems.ts';
import { localInputToIso, toLocalInput } from '../integrations-parts.tsx';
import type { PromotionRule } from './summary.ts';

/** Products and collections (the units of buy X get Y, or the lines the conditions match). */
export interface Selection {
  productIds: string[];
  collectionIds: string[];
}

export interface PromotionDraft {
  name: string;
  automatic: boolean;
  code: string;
  kind: PromotionActionKind;
  /** A percentage as typed ("25", "12,5"). */
  percent: string;
  /** Minor units of the store currency (the money field's), null when empty. */
  amount: number | null;
  target: 'order' | 'items';
  buyQuantity: string;
  buy: Selection;
  getQuantity: string;
  get: Selection;
  getPercent: string;
  minSubtotal: number | null;
  minQuantity: string;
  matching: Selection;
  customerGroupIds: string[];
  marketIds: string[];
  firstOrderOnly: boolean;
  combinesWith: PromotionCombinesWith;
  /** `datetime-local` values in the browser's time zone; empty: none. */
  startsAt: string;
  endsAt: string;
  usageLimit: string;
  perCustomerLimit: string;
}

export const NAME_MAX = 200;
const CODE = /^[A-Za-z0-9_-]{1,64}$/;

const text = (value: number | null | undefined) =>
  value === null || value === undefined ? '' : String(value);
const selectionOf = (units?: { productIds?: string[]; collectionIds?: string[] }): Selection => ({
  productIds: units?.productIds ?? [],
  collectionIds: units?.collectionIds ?? [],
});

export function promotionDraft(promotion: Promotion | null): PromotionDraft {
  const action = promotion?.action;
  const conditions = promotion?.conditions ?? {};
  return {
    name: promotion?.name ?? '',
    automatic: promotion?.automatic ?? false,
    code: promotion?.code ?? '',
    kind: action?.kind ?? 'percent',
    percent: action?.kind === 'percent' ? text(action.value) : '',
    amount: action?.kind === 'amount' ? (action.value ?? null) : null,
    target: action?.target ?? 'order',
    buyQuantity: text(action?.buy?.quantity ?? 1),
    buy: selectionOf(action?.buy),
    getQuantity: text(action?.get?.quantity ?? 1),
    get: selectionOf(action?.get),
    getPercent: text(action?.get?.percent ?? 100),
    minSubtotal: conditions.minSubtotal ?? null,
    minQuantity: text(conditions.minQuantity),
    matching: selectionOf(conditions),
    customerGroupIds: conditions.customerGroupIds ?? [],
    marketIds: conditions.marketIds ?? [],
    firstOrderOnly: conditions.firstOrderOnly ?? false,
    combinesWith: promotion?.combinesWith ?? { order: false, items: false, shipping: false },
    startsAt: promotion?.startsAt ? toLocalInput(new Date(promotion.startsAt)) : '',
    endsAt: promotion?.endsAt ? toLocalInput(new Date(promotion.endsAt)) : '',
    usageLimit: text(promotion?.usageLimit),
    perCustomerLimit: text(promotion?.perCustomerLimit),
  };
}

/** A typed percentage (two decimals at most, "12,5" too) as a number, or undefined. */
export function readPercent(typed: string): number | undefined {
  const parsed = decimalToMinor(typed.trim().replace(/\s*%$/, ''), 2);
  return parsed.ok ? parsed.amount / 100 : undefined;
}

/** A typed whole number, or undefined. */
export function readWhole(typed: string): number | undefined {
  const trimmed = typed.trim();
  return /^\d{1,12}$/.test(trimmed) ? Number(trimmed) : undefined;
}

const withIds = (selection: Selection) => ({
  ...(selection.productIds.length > 0 ? { productIds: selection.productIds } : {}),
  ...(selection.collectionIds.length > 0 ? { collectionIds: selection.collectionIds } : {}),
});

/**
 * The action the draft says. A number that does not read yet is undefined (the summary shows "?");
 * a checked draft has them all.
 */
export function draftAction(draft: PromotionDraft): PromotionAction {
  const value = (number: number | undefined) => (number === undefined ? {} : { value: number });
  switch (draft.kind) {
    case 'percent':
      return { kind: 'percent', target: draft.target, ...value(readPercent(draft.percent)) };
    case 'amount':
      return { kind: 'amount', target: draft.target, ...value(draft.amount ?? undefined) };
    case 'free_shipping':
      return { kind: 'free_shipping' };
    case 'buy_x_get_y':
      return {
        kind: 'buy_x_get_y',
        buy: { quantity: readWhole(draft.buyQuantity) as number, ...withIds(draft.buy) },
        get: {
          quantity: readWhole(draft.getQuantity) as number,
          ...withIds(draft.get),
          percent: readPercent(draft.getPercent) as number,
        },
      };
  }
}

/** The conditions the draft sets (the API leaves out those not set, so a saved one compares equal). */
export function draftConditions(draft: PromotionDraft): PromotionConditions {
  const minQuantity = readWhole(draft.minQuantity);
  return {
    ...(draft.minSubtotal ? { minSubtotal: draft.minSubtotal } : {}),
    ...(minQuantity ? { minQuantity } : {}),
    ...withIds(draft.matching),
    ...(draft.customerGroupIds.length > 0 ? { customerGroupIds: draft.customerGroupIds } : {}),
    ...(draft.marketIds.length > 0 ? { marketIds: draft.marketIds } : {}),
    ...(draft.firstOrderOnly ? { firstOrderOnly: true } : {}),
  };
}

/** What the summary says of the draft as it is now. */
export function draftRule(draft: PromotionDraft): PromotionRule {
  return {
    action: draftAction(draft),
    conditions: draftConditions(draft),
    combinesWith: draft.combinesWith,
    perCustomerLimit: readWhole(draft.perCustomerLimit) ?? null,
  };
}

/** What the form can tell before sending; the server checks the ranges (shown at their fields). */
export function checkPromotion(draft: PromotionDraft, amountProblem: string | null): FormProblem | null {
  const fields: FieldMessage[] = [];
  const add = (pointer: string, detail: string) => fields.push({ pointer, detail });
  const name = draft.name.trim();
  if (name === '') add('/name', 'Enter a name, like “Summer sale”: buyers see it on their cart.');
  else if (name.length > NAME_MAX) add('/name', `Use at most ${NAME_MAX} characters.`);
  if (!draft.automatic && !CODE.test(draft.code.trim()))
    add('/code', 'Enter a code of 1 to 64 letters, digits, hyphens or underscores, like SUMMER25.');
  if (draft.kind === 'percent' && readPercent(draft.percent) === undefined)
    add('/action/value', 'Enter a percentage, like 25 or 12.5.');
  if (draft.kind === 'amount' && (amountProblem !== null || draft.amount === null))
    add('/action/value', amountProblem ?? 'Enter the amount taken off, like 5.00.');
  if (draft.kind === 'buy_x_get_y') {
    if (!readWhole(draft.buyQuantity)) add('/action/buy/quantity', 'Enter how many to buy, 1 or more.');
    if (!readWhole(draft.getQuantity)) add('/action/get/quantity', 'Enter how many they get, 1 or more.');
    if (readPercent(draft.getPercent) === undefined)
      add('/action/get/percent', 'Enter the percentage off what they get: 100 makes it free.');
  }
  if (draft.minQuantity.trim() !== '' && !readWhole(draft.minQuantity))
    add('/conditions/minQuantity', 'Enter a whole number of items, 1 or more, or leave it empty.');
  for (const limit of ['usageLimit', 'perCustomerLimit'] as const)
    if (draft[limit].trim() !== '' && !readWhole(draft[limit]))
      add(`/${limit}`, 'Enter a whole number of uses, 1 or more, or leave it empty for no limit.');
  const starts = localInputToIso(draft.startsAt);
  const ends = localInputToIso(draft.endsAt);
  if (starts && ends && Date.parse(ends) <= Date.parse(starts))
    add('/endsAt', 'The end must come after the start.');
  return fields.length > 0 ? localProblem('Some fields need your attention.', fields) : null;
}

/** A value as JSON with its keys in order, to compare a draft's part with the saved one. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
      : inner,
  );
}

const limitOf = (typed: string) => (typed.trim() === '' ? null : readWhole(typed)!);

/** The call that saves the form (the draft checked): a new promotion, or what changed (null: nothing). */
export function promotionSave(draft: PromotionDraft, promotion: Promotion | null): PromotionSave | null {
  const whole: NewPromotionBody = {
    name: draft.name.trim(),
    ...(draft.automatic ? { automatic: true, code: null } : { automatic: false, code: draft.code.trim() }),
    action: draftAction(draft),
    conditions: draftConditions(draft),
    combinesWith: draft.combinesWith,
    startsAt: localInputToIso(draft.startsAt),
    endsAt: localInputToIso(draft.endsAt),
    usageLimit: limitOf(draft.usageLimit),
    perCustomerLimit: limitOf(draft.perCustomerLimit),
  };
  if (!promotion) return { id: null, body: whole };
  const body: PromotionPatch = {};
  if (whole.name !== promotion.name) body.name = whole.name;
  const code = whole.code ? whole.code.toUpperCase() : null;
  if (whole.automatic !== promotion.automatic || code !== promotion.code) {
    body.automatic = whole.automatic;
    body.code = whole.code;
  }
  if (canonical(whole.action) !== canonical(promotion.action)) body.action = whole.action;
  if (canonical(whole.conditions) !== canonical(promotion.conditions)) body.conditions = whole.conditions;
  if (canonical(whole.combinesWith) !== canonical(promotion.combinesWith))
    body.combinesWith = whole.combinesWith;
  // The form shows minutes: a saved time with seconds is kept unless its field was changed.
  const shown = (iso: string | null) => (iso ? toLocalInput(new Date(iso)) : '');
  if (draft.startsAt !== shown(promotion.startsAt)) body.startsAt = whole.startsAt;
  if (draft.endsAt !== shown(promotion.endsAt)) body.endsAt = whole.endsAt;
  if (whole.usageLimit !== promotion.usageLimit) body.usageLimit = whole.usageLimit;
  if (whole.perCustomerLimit !== promotion.perCustomerLimit) body.perCustomerLimit = whole.perCustomerLimit;
  return Object.keys(body).length > 0 ? { id: promotion.id, body } : null;
}
