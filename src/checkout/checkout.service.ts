import { createHmac, randomUUID } from 'node:crypto';
import type { Compilable, Transaction } from 'kysely';
import { cartCompleted, completeCart, findCart, type CartRow } from '../carts/carts.service.ts';
import { heldMethodAmount } from '../shipping/shipping.service.ts';
import type { StockLine } from '../catalog/inventory/inventory.ts';
import { readPricing, type ReadPricing } from '../catalog/inventory/sellable.ts';
import { isDatabaseUnavailable, isOutcomeUnknown, isUniqueViolation, reportIfOutage } from '../db/errors.ts';
import type { Database } from '../db/tables.ts';
import { AppError, unauthorized } from '../lib/errors.ts';
import type { GiftCardLookupDeps } from '../gift-cards/gift-cards.ledger.ts';
import { holdCards, type CardPayment } from '../gift-cards/gift-cards.tender.ts';
import { payPlacedOrder } from '../orders/provider-events.service.ts';
import type { TaxServiceDeps } from '../pricing/tax-service.ts';
import type { OrdersDeps } from '../orders/orders.deps.ts';
import type { CheckoutResult } from '../orders/orders.schemas.ts';
import {
  checkoutOfKey,
  holdPendingSlot,
  pendingOrdersHeld,
  writeOrder,
  type Holder,
  type PendingOrdersOf,
} from '../orders/placed-orders.service.ts';
import { ProviderError, providerUnavailable, type Intent } from '../payments/provider.ts';
import { reserveUses, type OfferBuyer } from '../promotions/offer.ts';
import { promotionHistory } from '../orders/promotion-history.ts';
import { clientBucketOf } from '../ratelimit/ratelimit.limiter.ts';
import { customerOfOrder } from '../customers/customers.service.ts';
import { transactionEndingWith } from '../db/last-statement.ts';
import { recentStore, type Store } from '../stores/stores.service.ts';
import { MAIL_LOOP } from '../mail/outbox.ts';
import { marketOfCountry, storeAmountsIn, type Market } from '../markets/markets.service.ts';
import { quote, type Quote } from './quote.ts';
import { reserveQuoted } from './reservation.ts';
import { refusalOf } from './refusals.ts';
import { cartChoices, type CheckoutInput } from './checkout.input.ts';
import { cardPayments, checkoutCardIds } from './checkout.gift-cards.ts';
import { ReservationsInFlight } from './reservations-in-flight.ts';

export { checkoutOfKey };
export { checkoutInput, type CheckoutInput } from './checkout.input.ts';

export type CheckoutDeps = Pick<
  OrdersDeps,
  'db' | 'keyring' | 'clock' | 'provider' | 'log' | 'settings' | 'signals'
> & {
  /** Decision `gift-card-codes`: the body's gift card codes are looked up through this (each a guess). */
  giftCards?: GiftCardLookupDeps | undefined;
  /** Decision `tax-service`: the store's tax service, asked for every quote (a failure refuses the checkout). */
  taxService: TaxServiceDeps;
  /** Decision `price-function`: the signed-in customer's groups, whose price lists price the order. */
  groupIds?: readonly string[] | undefined;
};

const cartEmpty = (): AppError =>
  new AppError('cart_empty', 409, 'The cart has no items that can be bought.');

const cartChanged = (): AppError =>
  new AppError('cart_changed', 409, 'Prices changed while checking out. Review the cart and try again.');

/** Who buys, as promotions count their uses (decision `per-customer-uses-from-orders`). */
const buyerOf = (deps: CheckoutDeps, holder: Holder, input: CheckoutInput): OfferBuyer => ({
  customerId: input.customerId ?? null,
  email: holder.email,
  groupIds: deps.groupIds ?? [],
});

/** Orders are kept with their email in lower case. */
const orderEmail = (email: string): string => email.trim().toLowerCase();

function holderOf(keyring: CheckoutDeps['keyring'], input: CheckoutInput): Holder {
  const mac = createHmac('sha256', keyring.key(CLIENT_KEY_PURPOSE)).update(clientBucketOf(input.client));
  return { clientKey: mac.digest('base64url').slice(0, 22), email: orderEmail(input.email) };
}

/** The keyring purpose of client keys: pending orders remember a client by this, not by its address. */
const CLIENT_KEY_PURPOSE = 'client-address';

const tooManyPending = (limit: number, held: PendingOrdersOf, now: Date): AppError => {
  const retryAfter =
    held.firstExpiry === null
      ? 1
      : Math.max(1, Math.ceil((held.firstExpiry.getTime() - now.getTime()) / 1000));
  return new AppError(
    'too_many_pending_orders',
    429,
    `This device or network has ${limit} unpaid orders in this store already. Pay one of them, or check out again once one has expired.`,
    { headers: { 'retry-after': String(retryAfter) } },
  );
};

/**
 * 429 too_many_pending_orders when the client holds the most pending orders allowed. An email's are
 * not counted: anyone can type anyone's (decision `pending-orders-per-client`).
 */
function tooManyHeld(limit: number, held: PendingOrdersOf, now: Date): AppError | null {
  return held.byClient >= limit ? tooManyPending(limit, held, now) : null;
}

/** Checkouts reserving units right now in this process (a hint for the pre-check). */
const inFlight = new ReservationsInFlight();
/** The longest one wait for other checkouts' reservations lasts, and all of them together. */
const GATE_WAIT_MS = 2000;
const GATE_DEADLINE_MS = 5000;

/** Stores the checkout's answer under its Idempotency-Key, in the order's transaction. */
export type StoreCheckoutAnswer = (db: Transaction<Database>, answer: CheckoutResult) => Compilable;

/** Why a checkout must be priced again: the catalog changed between quoting and reserving. */
class QuoteChanged extends Error {}

/**
 * Checkout (spec 4.2, decisions `idempotency-keys`, `stock-reservation` and `checkout-after-a-crash`).
 *
 * Order of operations, chosen so that no failure can leave reserved stock, a half order, or a
 * charge without an order:
 *
 * 1. An order that already carries this Idempotency-Key is the answer (a retry after a crash). It
 *    completed its cart, so it is looked for when the cart is completed or gone, and when the
 *    order's insert meets the key's unique index: the common first attempt pays no lookup.
 * 2. Quote the cart and pre-check its stock, both without locks: a checkout that cannot succeed
 *    is refused before the provider is called (decision `checkout-after-a-crash`). The first quote prices the variants the
 *    cart's own reads kept a moment ago; a refusal is only given on a fresh read.
 * 3. Create the payment intent at the provider for that amount (with a provider idempotency key
 *    per order id, so the SDK's network retries never create a second intent). A provider failure
 *    ends the checkout here: 502, nothing written, nothing reserved.
 * 4. One transaction (placeOrder, in named steps): complete the cart if unchanged (which locks it),
 *    reserve every line at the quoted prices, count the promotions' uses, write the order (with its
 *    number and key), its lines and the payment, record order.created. The atomic reservation
 *    decides. Between 2 and 3, a checkout whose units other checkouts of this process are
 *    reserving right now waits for them and quotes again (decision `reservations-in-flight`).
 * 5. If step 4 fails, the intent is cancelled. Its client secret was never given out, so it could
 *    not have been confirmed: no charge without an order.
 */
export async function checkout(
  deps: CheckoutDeps,
  storeId: string,
  input: CheckoutInput,
  idempotencyKey: string,
  /** Stores the answer under the key in the order's transaction (decision `idempotency-keys`: they commit together). */
  storeAnswer?: StoreCheckoutAnswer,
): Promise<CheckoutResult> {
  const store = await recentStore(deps, storeId);
  const requireShipping = store?.requireShippingAddress ?? false;
  // Step 1 (decision `checkout-after-a-crash`): the body, hence the cart, is the key's; a key reused on another cart after its
  // record expired meets the order's unique key at the insert (handled below).
  const refuse = async (refusal: AppError): Promise<CheckoutResult> => {
    const made = await checkoutOfKey(deps, storeId, idempotencyKey);
    if (made) return made;
    throw refusal;
  };

  const holder = holderOf(deps.keyring, input);
  // The first quote takes the variants the cart's last reads kept (decision `settings-cache`); a
  // refusal, a wait and a second attempt read them afresh, so no checkout is refused on a cached
  // read, and the reservation checks every price under its lock anyway.
  let read: 'cached' | 'fresh' = 'cached';
  let gated = true;
  // The gift cards that pay, by id: looked up once (a code is a guess), their balances on each attempt.
  let cardIds: readonly string[] | undefined;
  const gateDeadline = performance.now() + GATE_DEADLINE_MS;
  for (let attempt = 1; ; attempt++) {
    let cart: CartRow;
    let held: PendingOrdersOf;
    try {
      // With the client's pending orders, counted without locks at the same time (each part reads
      // its own tables), before the provider is called; the transaction counts again under a lock.
      [cart, held] = await Promise.all([
        findCart(deps, storeId, input.cartId),
        pendingOrdersHeld(deps, storeId, holder),
      ]);
    } catch (error) {
      if (error instanceof AppError && error.status === 404) return refuse(error);
      throw error;
    }
    if (cart.completed_at !== null) return refuse(cartCompleted());
    if (cart.items.length === 0) throw cartEmpty();
    const hoarding = tooManyHeld(deps.settings.pendingOrdersPerClient, held, deps.clock.now());
    if (hoarding) return refuse(hoarding);
    const chosen = cartChoices(input, cart);
    // Decision `markets`: the destination's market prices the order, in its currency.
    const market = await marketOfCountry(deps, storeId, chosen.country ?? cart.country);
    const quoting = {
      ...market,
      convert: storeAmountsIn(market),
      buyer: await readPricing(deps, storeId, market, deps.groupIds ?? []),
    };
    let now: Date;
    let quoted: Quote;
    for (;;) {
      now = deps.clock.now();
      quoted = await quote(
        { ...deps, promotionHistory },
        storeId,
        quoting,
        chosen,
        buyerOf(deps, holder, input),
        cart.items,
        now,
        read,
      );
      const refusal = refusalOf(quoted, chosen, requireShipping);
      if (refusal && read === 'cached') {
        read = 'fresh';
        continue;
      }
      if (refusal) throw refusal;
      // Units other checkouts of this process are reserving now: wait for them, then quote again
      // (the cart's version is checked when the order is placed).
      const busy = gated ? inFlight.waitIfShort(storeId, quoted.lines, GATE_WAIT_MS) : null;
      if (!busy) break;
      await busy;
      read = 'fresh';
      gated = performance.now() < gateDeadline;
    }
    cardIds ??= await checkoutCardIds(deps, storeId, input, cart, market.currency);
    const cards = await cardPayments(deps, storeId, cardIds, quoted, market.currency, now);
    const release = inFlight.hold(storeId, quoted.lines);
    const placed: { left?: Map<string, number> } = {};
    try {
      return await placeWithIntent(deps, placed, {
        store: store!,
        cards,
        storeId,
        currency: market.currency,
        market: quoting,
        idempotencyKey,
        input: chosen,
        holder,
        who: buyerOf(deps, holder, input),
        quoted,
        cartId: cart.id,
        cartVersion: cart.version,
        cartItems: cart.items,
        now,
        storeAnswer,
      });
    } catch (error) {
      read = 'fresh';
      if (error instanceof QuoteChanged && attempt < 3) continue;
      if (error instanceof QuoteChanged) throw cartChanged();
      throw error;
    } finally {
      release(placed.left);
    }
  }
}

/**
 * Steps 3 to 5: the intent, the transaction, and on failure the intent cancelled. The answer of
 * another attempt with the same key that won the race, when there is one.
 */
async function placeWithIntent(
  deps: CheckoutDeps,
  placed: { left?: Map<string, number> },
  p: Omit<PlaceOrder, 'orderId' | 'intent'> & {
    cartId: string;
    storeAnswer: StoreCheckoutAnswer | undefined;
  },
): Promise<CheckoutResult> {
  const { storeId, idempotencyKey } = p;
  const orderId = randomUUID();
  const due = p.quoted.totals.total - p.cards.reduce((sum, card) => sum + card.amount, 0);
  // Decision `gift-card-tender`: the provider is asked only for what the gift cards leave.
  const intent =
    due === 0
      ? null
      : await createIntent(deps, {
          storeId,
          orderId,
          currency: p.currency,
          total: due,
          metadata: { cartId: p.cartId },
        });
  const order: PlaceOrder = { ...p, orderId, intent };
  try {
    const result = await transactionEndingWith(
      deps.db,
      (trx) => placeOrder({ ...deps, db: trx }, order),
      // The transaction's last statement: the COMMIT goes with it.
      (trx, placed) => p.storeAnswer?.(trx, placed) ?? null,
    );
    // Committed: what the reservation left is now true.
    placed.left = order.left;
    // Paid at once by its gift cards: the confirmation mail is queued.
    if (intent === null) deps.signals.wake(MAIL_LOOP);
    return result;
  } catch (error) {
    if (intent) await cancelUnusedIntent(deps, intent, error);
    // Another attempt with this key won the race (its lease had been taken over): its order is the answer.
    if (isUniqueViolation(error) || (error instanceof AppError && error.title === 'cart_completed')) {
      const winner = await checkoutOfKey(deps, storeId, idempotencyKey);
      if (winner) return winner;
    }
    throw error;
  }
}

/**
 * Step 5: the intent of an order whose transaction failed is cancelled, unless the failure leaves
 * the outcome unknown (decision `intent-of-an-unknown-outcome`): a connection lost during the
 * transaction or with its COMMIT may have come after the commit, and then the retry with the same
 * key answers that order with this intent's client secret. An intent left so, of an order that did
 * not commit, was never given out: nobody can confirm it.
 */
export async function cancelUnusedIntent(
  deps: Pick<CheckoutDeps, 'provider' | 'log'>,
  intent: Intent,
  failure: unknown,
): Promise<void> {
  if (isOutcomeUnknown(failure)) {
    deps.log.debug({ ref: intent.ref }, 'the order may have committed: its payment intent is kept');
    return;
  }
  await deps.provider.cancelIntent(intent.ref).catch((error: unknown) => {
    // While the database is away (the sandbox keeps its intents there), one throttled line.
    if (!reportIfOutage(deps.log, error, { ref: intent.ref }))
      deps.log.warn({ err: error, ref: intent.ref }, 'could not cancel an unused payment intent');
  });
}

/**
 * The provider's payment intent for an order about to be written (its id chosen), with a provider
 * idempotency key per order; 502 `provider_unavailable` when the provider fails (a draft's invoice
 * creates its intent the same way, decision `draft-orders`).
 */
export async function createIntent(
  deps: Pick<CheckoutDeps, 'provider' | 'log'>,
  order: {
    storeId: string;
    orderId: string;
    currency: string;
    total: number;
    /** What else the provider keeps with the intent (the cart's id, the draft's). */
    metadata: Record<string, string>;
  },
): Promise<Intent> {
  try {
    return await deps.provider.createIntent({
      amount: order.total,
      currency: order.currency,
      metadata: { ...order.metadata, storeId: order.storeId, orderId: order.orderId },
      idempotencyKey: `checkout:${order.storeId}:${order.orderId}`,
    });
  } catch (error) {
    // The database, not the provider (the sandbox keeps its intents there): 503 with Retry-After,
    // logged once per interval by the error handler.
    if (isDatabaseUnavailable(error)) throw error;
    deps.log.warn(
      { err: error instanceof ProviderError ? error.message : error, storeId: order.storeId },
      'payment provider failed at checkout',
    );
    throw providerUnavailable();
  }
}

/** What step 4 works on: the quote and intent of steps 2 and 3. */
interface PlaceOrder {
  /** The store, as its buyer's mails name it (an order the gift cards pay whole is confirmed at once). */
  store: Store;
  storeId: string;
  /** Decision `gift-card-tender`: what each gift card pays (held in the transaction). */
  cards: readonly CardPayment[];
  currency: string;
  /** The market it is priced in (decision `markets`), with its conversion of the store's amounts and the buyer's prices. */
  market: Market & { convert: ((amount: number) => number) | undefined; buyer: ReadPricing | null };
  orderId: string;
  idempotencyKey: string;
  input: CheckoutInput;
  holder: Holder;
  /** Who buys, as the promotions' limits count them. */
  who: OfferBuyer;
  /** The provider's intent for what the cards leave; null when they pay it all. */
  intent: Intent | null;
  quoted: Quote;
  cartVersion: number;
  /** The cart's lines at `cartVersion`. */
  cartItems: readonly StockLine[];
  now: Date;
  /** Set by the reservation: what each variant has left available once this commits. */
  left?: Map<string, number>;
}

type InTransaction = Omit<CheckoutDeps, 'db'> & { db: Transaction<Database> };

/** Step 4 of checkout, in its transaction: each step below is one thing the commit makes true. */
async function placeOrder(tx: InTransaction, p: PlaceOrder): Promise<CheckoutResult> {
  await completeUnchangedCart(tx, p);
  await reserveAtQuotedPrices(tx, p);
  await shippingAsQuoted(tx, p);
  // Late: the client's slot lock is held from here to the commit, so checkouts of one client (many
  // shoppers behind one address) wait on each other only for the order's insert, which the store's
  // order counter serialises anyway.
  const hoarding = tooManyHeld(
    tx.settings.pendingOrdersPerClient,
    await holdPendingSlot(tx, p.storeId, p.holder),
    p.now,
  );
  if (hoarding) throw hoarding;
  const customerId = await customerOfOrder(
    tx.db,
    p.storeId,
    p.input.customerId === undefined ? { email: p.holder.email } : { customerId: p.input.customerId },
    p.now,
  );
  // The signed-in customer was erased while checking out: nothing of theirs is written.
  if (customerId === undefined)
    throw unauthorized('The customer token is invalid or has expired; sign in again.', 'storefront', true);
  // Decision `promotion-limits`: the uses of what applies, reserved like stock (a promotion used
  // up meanwhile prices the checkout again, which then goes without it or refuses its code).
  if (
    !(await reserveUses(
      promotionHistory,
      tx.db,
      p.storeId,
      p.quoted.offer,
      p.quoted.promotions,
      p.who,
      p.now,
    ))
  )
    throw new QuoteChanged();
  // Decision `gift-card-tender`: the gift cards' holds, each a conditional UPDATE of its balance.
  await holdCards(
    tx.db,
    { storeId: p.storeId, orderId: p.orderId, currency: p.currency, now: p.now },
    p.cards,
  );
  // Last: the store's order counter stays locked from this statement to the commit (decision `order-numbers`).
  const written = await writeOrder(tx, {
    customerId,
    signedIn: p.input.customerId !== undefined,
    storeId: p.storeId,
    orderId: p.orderId,
    cartId: p.input.cartId,
    currency: p.currency,
    marketId: p.market.id,
    idempotencyKey: p.idempotencyKey,
    holder: p.holder,
    country: p.input.country ?? null,
    lines: p.quoted.lines,
    totals: p.quoted.totals,
    tax: p.quoted.tax,
    discountCode: p.quoted.promotions.find((promotion) => promotion.code !== null)?.code ?? null,
    promotions: p.quoted.promotions,
    shippingAddress: p.input.shippingAddress ?? null,
    billingAddress: p.input.billingAddress ?? null,
    shippingMethod: p.quoted.shipping.method && {
      id: p.quoted.shipping.method.id,
      name: p.quoted.shipping.method.name,
      minDeliveryDays: p.quoted.shipping.method.minDeliveryDays,
      maxDeliveryDays: p.quoted.shipping.method.maxDeliveryDays,
    },
    phone: p.input.phone ?? null,
    giftCards: p.cards.map(({ id, last4, amount }) => ({ id, last4, amount })),
    intent: p.intent,
    now: p.now,
  });
  if (p.intent !== null) return written;
  // Paid whole by gift cards: paid now, in this transaction.
  const paid = await payPlacedOrder(tx, p.store, p.orderId);
  return {
    order: { ...written.order, status: paid.status, paidAt: paid.paid_at?.toISOString() ?? null },
    payment: { ...written.payment, status: 'succeeded' },
  };
}

/**
 * The shipping method charged still carries the parcel at the quoted amount (decision `checkout-with-shipping`), read under a
 * lock on the method that holds until the commit: a changed amount, or a method that no longer
 * fits, prices the checkout again (as a changed price does).
 */
async function shippingAsQuoted(tx: InTransaction, p: PlaceOrder): Promise<void> {
  const method = p.quoted.shipping.method;
  if (method === null) return;
  const amount = await heldMethodAmount(tx, p.storeId, method.id, p.quoted.shipping.parcel, p.market.convert);
  if (amount !== method.amount.amount) throw new QuoteChanged();
}

/**
 * The cart, completed and locked; it must still be the version that was quoted (its lines are then
 * the ones quoted: every change of a line bumps the version).
 */
async function completeUnchangedCart(tx: InTransaction, p: PlaceOrder): Promise<void> {
  if (!(await completeCart(tx, p.storeId, p.input.cartId, p.cartVersion, p.now))) throw new QuoteChanged();
}

/** Reserves every line at its quoted price (`reserveQuoted`); a changed quote prices the checkout again. */
async function reserveAtQuotedPrices(tx: InTransaction, p: PlaceOrder): Promise<void> {
  const left = await reserveQuoted(tx.db, p.storeId, p.market.buyer, p.quoted.lines, p.now);
  if (left === null) throw new QuoteChanged();
  p.left = left;
}
