/**
 * A promotion's rule in plain words (decision `promotions-resource`, docs/promotions.md), for the
 * Promotions list and the form, which shows it live as the merchant edits: "25 % off the order over
 * $50.00, once per customer, combines with shipping promotions", "Buy 2 of Socks, get 1 free", "Free
 * shipping over $100.00". It says the action and what it applies to, every condition, the
 * per-customer limit and what it combines with (nothing said: it combines with no other promotion,
 * the API's default). Its code, dates and total uses are shown beside it, not in it. Pure: no React,
 * no clock; names come from the caller (a name not known, deleted or not read yet, is counted: "2
 * products").
 */
import type {
  PromotionAction,
  PromotionCombinesWith,
  PromotionConditions,
} from '../../data/promotion-types.ts';
import { formatMoney } from '../../ui/money.ts';

/** What the summary reads of a promotion (a saved one, or the form's draft). */
export interface PromotionRule {
  action: PromotionAction;
  conditions: PromotionConditions;
  combinesWith: PromotionCombinesWith;
  perCustomerLimit: number | null;
}

/** The names the summary says, by id: undefined when not known. */
export interface SummaryNames {
  currency: string;
  product: (id: string) => string | undefined;
  collection: (id: string) => string | undefined;
  group: (id: string) => string | undefined;
  market: (id: string) => string | undefined;
}

/** At most this many names of one list are said; the rest are counted. */
export const NAMED_AT_MOST = 3;

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** "A", "A or B", "A, B or C"; `and` instead of `or` where every one is meant. */
function joined(words: readonly string[], conjunction: 'or' | 'and'): string {
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} ${conjunction} ${words.at(-1)}`;
}

/**
 * The names of `ids` (at most NAMED_AT_MOST), the others counted: "Socks or Hats", "Socks, Hats,
 * Scarves or 2 other products", "3 products".
 */
function namesOf(
  ids: readonly string[],
  lookup: (id: string) => string | undefined,
  [one, many]: [string, string],
  conjunction: 'or' | 'and',
): string {
  const named = ids
    .slice(0, NAMED_AT_MOST)
    .map(lookup)
    .filter((name): name is string => name !== undefined);
  const rest = ids.length - named.length;
  if (named.length === 0) return plural(rest, one, many);
  return joined(rest > 0 ? [...named, plural(rest, `other ${one}`, `other ${many}`)] : named, conjunction);
}

/** Products and collections: "Socks", "items from Summer", "Socks or items from Summer"; null: none. */
function selection(
  products: readonly string[] | undefined,
  collections: readonly string[] | undefined,
  names: SummaryNames,
  conjunction: 'or' | 'and',
): string | null {
  const parts: string[] = [];
  if (products?.length) parts.push(namesOf(products, names.product, ['product', 'products'], conjunction));
  if (collections?.length)
    parts.push(
      `items from ${namesOf(collections, names.collection, ['collection', 'collections'], conjunction)}`,
    );
  return parts.length > 0 ? parts.join(` ${conjunction} `) : null;
}

/** The ids of the products a summary names (the first few of each list): those to look up. */
export function namedProductIds(rule: Pick<PromotionRule, 'action' | 'conditions'>): string[] {
  const lists = [rule.conditions.productIds, rule.action.buy?.productIds, rule.action.get?.productIds];
  return [...new Set(lists.flatMap((ids) => (ids ?? []).slice(0, NAMED_AT_MOST)))];
}

/** A count of units of a selection: "2 of Socks", "3 items from Summer", "2" (none: any). */
function unitsOf(quantity: number | string, which: string | null): string {
  if (!which) return String(quantity);
  if (which.startsWith('items from '))
    return `${quantity} ${quantity === 1 ? 'item' : 'items'} ${which.slice('items '.length)}`;
  return `${quantity} of ${which}`;
}

const percent = (value: number | undefined) => `${value ?? '?'} %`;

type Units = NonNullable<PromotionAction['buy']>;

const sameIds = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  [...(a ?? [])].sort().join() === [...(b ?? [])].sort().join();

/** Buy X get Y: "Buy 2 of Socks, get 1 free", "Buy 3, get 1 of Hats at 50 % off". */
function buyGet(
  buy: Units | undefined,
  get: (Units & { percent?: number }) | undefined,
  names: SummaryNames,
) {
  const which = (units: Units | undefined) => selection(units?.productIds, units?.collectionIds, names, 'or');
  const bought = which(buy);
  const got = which(get);
  const buyText = `Buy ${unitsOf(buy?.quantity ?? '?', bought)}`;
  const sameUnits =
    sameIds(buy?.productIds, get?.productIds) && sameIds(buy?.collectionIds, get?.collectionIds);
  // The units got are of what was bought unless the get side says otherwise.
  const quantity = get?.quantity ?? '?';
  const getText =
    got && !sameUnits ? unitsOf(quantity, got) : !got && bought ? `${quantity} of any product` : quantity;
  const off = get?.percent === 100 ? 'free' : `at ${percent(get?.percent)} off`;
  return `${buyText}, get ${getText} ${off}`;
}

/** The action and what it applies to: "25 % off the order", "$5.00 off Socks", "Free shipping". */
function actionText(action: PromotionAction, conditions: PromotionConditions, names: SummaryNames): string {
  const amount = (value: number | undefined) =>
    value === undefined ? '?' : formatMoney(value, names.currency);
  const off =
    action.kind === 'percent' ? percent(action.value) : action.kind === 'amount' ? amount(action.value) : '';
  switch (action.kind) {
    case 'percent':
    case 'amount':
      if (action.target === 'items')
        return `${off} off ${selection(conditions.productIds, conditions.collectionIds, names, 'and') ?? 'every item'}`;
      return `${off} off the order`;
    case 'free_shipping':
      return 'Free shipping';
    case 'buy_x_get_y':
      return buyGet(action.buy, action.get, names);
  }
}

/** The conditions, each a phrase after the action: "over $50.00", "in Europe", "on a buyer’s first order". */
function conditionPhrases(rule: PromotionRule, names: SummaryNames): string[] {
  const { conditions, action } = rule;
  const onItems = (action.kind === 'percent' || action.kind === 'amount') && action.target === 'items';
  const filter = onItems ? null : selection(conditions.productIds, conditions.collectionIds, names, 'or');
  const phrases: string[] = [];
  // The minimums are about the matching lines: said of them ("of them", "spent on Socks").
  let subject: string | null =
    onItems && (conditions.productIds?.length || conditions.collectionIds?.length) ? 'them' : filter;
  if (conditions.minSubtotal) {
    const money = formatMoney(conditions.minSubtotal, names.currency);
    phrases.push(subject ? `over ${money} spent on ${subject}` : `over ${money}`);
    if (subject) subject = 'them';
  }
  if (conditions.minQuantity) {
    const count = conditions.minQuantity;
    phrases.push(
      subject
        ? `for ${unitsOf(`${count} or more`, subject)}`
        : `for ${plural(count, 'item', 'items')} or more`,
    );
    if (subject) subject = 'them';
  }
  if (filter && subject === filter) phrases.push(`with ${filter} in the cart`);
  if (conditions.marketIds?.length)
    phrases.push(`in ${namesOf(conditions.marketIds, names.market, ['market', 'markets'], 'or')}`);
  if (conditions.customerGroupIds?.length)
    phrases.push(
      `for members of ${namesOf(conditions.customerGroupIds, names.group, ['customer group', 'customer groups'], 'or')}`,
    );
  if (conditions.firstOrderOnly) phrases.push('on a buyer’s first order');
  return phrases;
}

function perCustomer(limit: number | null): string | null {
  if (limit === null) return null;
  if (limit === 1) return 'once per customer';
  if (limit === 2) return 'twice per customer';
  return `up to ${limit} times per customer`;
}

function combines(combinesWith: PromotionCombinesWith): string | null {
  const kinds = [
    combinesWith.order ? 'order' : null,
    combinesWith.items ? 'item' : null,
    combinesWith.shipping ? 'shipping' : null,
  ].filter((kind) => kind !== null);
  return kinds.length > 0 ? `combines with ${joined(kinds, 'and')} promotions` : null;
}

/** The rule in one sentence, without a final full stop (it sits in a table cell). */
export function promotionSummary(rule: PromotionRule, names: SummaryNames): string {
  const sentence = [actionText(rule.action, rule.conditions, names), ...conditionPhrases(rule, names)].join(
    ' ',
  );
  return [sentence, perCustomer(rule.perCustomerLimit), combines(rule.combinesWith)]
    .filter((part) => part !== null)
    .join(', ');
}

/** A promotion's uses so far, against its limit: "12 of 500 used", "12 used". */
export function usageText(promotion: { usedCount: number; usageLimit: number | null }): string {
  return promotion.usageLimit === null
    ? `${promotion.usedCount} used`
    : `${promotion.usedCount} of ${promotion.usageLimit} used`;
}
