import { createHmac, randomUUID } from 'node:crypto';
import type { Compilable, Transaction } from 'kysely';
import { checkAddress, isKnownCountry, isPhoneNumber, type Address } from '@storefront/address';
import { cartCompleted, completeCart, findCart, type CartRow } from '../carts/carts.service.ts';
import { heldMethodAmount } from '../shipping/shipping.service.ts';
import { insufficientStock, reserveStock, type StockLine } from '../catalog/inventory/inventory.ts';
import { marketPricesNow, readPricing, type ReadPricing } from '../catalog/inventory/sellable.ts';
import { isDatabaseUnavailable, isUniqueViolation, reportIfOutage } from '../db/errors.ts';
import type { Database } from '../db/tables.ts';
import { AppError, unauthorized, validationFailed, type FieldError } from '../lib/errors.ts';
import { isEmail } from '../lib/validate.ts';
import type { TaxServiceDeps } from '../pricing/tax-service.ts';
import type { OrdersDeps } from '../orders/orders.deps.ts';
import type { CheckoutBody, CheckoutResult } from '../orders/orders.schemas.ts';
import {
  checkoutOfKey,
  holdPendingSlot,
  pendingOrdersHeld,
  writeOrder,
  type Holder,
  type PendingOrdersOf,
} from '../orders/placed-orders.service.ts';
import { ProviderError, providerUnavailable, type Intent } from '../payments/provider.ts';
import { useDiscount, type UsableDiscount } from '../pricing/pricing.service.ts';
import { clientBucketOf } from '../ratelimit/ratelimit.limiter.ts';
import { customerOfOrder } from '../customers/customers.service.ts';
import { transactionEndingWith } from '../db/last-statement.ts';
import { recentStore } from '../stores/stores.service.ts';
import { marketOfCountry, storeAmountsIn, type Market } from '../markets/markets.service.ts';
import { quote, type Quote, type QuoteInput } from './quote.ts';
import { ReservationsInFlight } from './reservations-in-flight.ts';

export { checkoutOfKey };

export interface CheckoutInput extends QuoteInput {
  cartId: string;
  email: string;
  /** The signed-in customer (decision `customer-accounts`): the order is theirs; otherwise the customer of the email. */
  customerId?: string | undefined;
  /** The client's address (`request.ip`): its pending orders are counted (decision `pending-orders-per-client`). */
  client: string;
  /** The body's shipping address, checked (the cart's is used without one). */
  shippingAddress?: Address | undefined;
  billingAddress?: Address | undefined;
  /** The body's shipping method (the cart's is used without one). */
  shippingMethodId?: string | undefined;
  phone?: string | undefined;
}

export type CheckoutDeps = Pick<OrdersDeps, 'db' | 'keyring' | 'clock' | 'provider' | 'log' | 'settings'> & {
  /** Decision `tax-service`: the store's tax service, asked for every quote (a failure refuses the checkout). */
  taxService: TaxServiceDeps;
  /** Decision `price-function`: the signed-in customer's groups, whose price lists price the order. */
  groupIds?: readonly string[] | undefined;
};

/**
 * The checkout request, checked beyond its schema and normalized (email trimmed, country upper
 * case), with the address of the client that sent it.
 */
export function checkoutInput(
  body: CheckoutBody,
  client: string,
  customer: { id: string; email: string } | null = null,
): CheckoutInput {
  const email = body.email?.trim() ?? customer?.email ?? '';
  const country = body.country?.toUpperCase();
  const phone = body.phone?.trim() || undefined;
  const errors: FieldError[] = [];
  if (email === '') errors.push({ pointer: '/email', detail: 'is required (or sign in as a customer)' });
  else if (!isEmail(email)) errors.push({ pointer: '/email', detail: 'must be an email address' });
  if (country !== undefined && !isKnownCountry(country))
    errors.push({ pointer: '/country', detail: 'must be an ISO 3166-1 alpha-2 country code' });
  if (phone !== undefined && !isPhoneNumber(phone))
    errors.push({ pointer: '/phone', detail: 'must be a phone number (digits, spaces, + ( ) . -)' });
  const checked = (field: 'shippingAddress' | 'billingAddress'): Address | undefined => {
    if (body[field] === undefined) return undefined;
    const { address, problems } = checkAddress(body[field], `/${field}`);
    errors.push(...problems);
    return address;
  };
  const shippingAddress = checked('shippingAddress');
  const billingAddress = checked('billingAddress');
  if (country !== undefined && shippingAddress !== undefined && shippingAddress.country !== country)
    errors.push({ pointer: '/country', detail: 'must be the country of the shipping address' });
  if (errors.length > 0) throw validationFailed('The checkout request is invalid.', errors);
  return {
    cartId: body.cartId,
    email,
    customerId: customer?.id,
    country,
    discountCode: body.discountCode,
    client,
    shippingAddress,
    billingAddress,
    shippingMethodId: body.shippingMethodId?.toLowerCase(),
    phone,
  };
}

const cartEmpty = (): AppError =>
  new AppError('cart_empty', 409, 'The cart has no items that can be bought.');

const cartChanged = (): AppError =>
  new AppError('cart_changed', 409, 'Prices changed while checking out. Review the cart and try again.');

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
 *    reserve every line at the quoted prices, count the discount use, write the order (with its
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
      quoted = await quote(deps, storeId, quoting, chosen, cart.items, now, read);
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
    const release = inFlight.hold(storeId, quoted.lines);
    const placed: { left?: Map<string, number> } = {};
    try {
      return await placeWithIntent(deps, placed, {
        storeId,
        currency: market.currency,
        market: quoting,
        idempotencyKey,
        input: chosen,
        holder,
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
  const intent = await createIntent(deps, {
    storeId,
    orderId,
    cartId: p.cartId,
    currency: p.currency,
    total: p.quoted.totals.total,
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
    return result;
  } catch (error) {
    await deps.provider.cancelIntent(intent.ref).catch((cancelError: unknown) => {
      // While the database is away (the sandbox keeps its intents there), one throttled line.
      if (!reportIfOutage(deps.log, cancelError, { ref: intent.ref }))
        deps.log.warn({ err: cancelError, ref: intent.ref }, 'could not cancel an unused payment intent');
    });
    // Another attempt with this key won the race (its lease had been taken over): its order is the answer.
    if (isUniqueViolation(error) || (error instanceof AppError && error.title === 'cart_completed')) {
      const winner = await checkoutOfKey(deps, storeId, idempotencyKey);
      if (winner) return winner;
    }
    throw error;
  }
}

async function createIntent(
  deps: Pick<CheckoutDeps, 'provider' | 'log'>,
  order: { storeId: string; orderId: string; cartId: string; currency: string; total: number },
): Promise<Intent> {
  try {
    return await deps.provider.createIntent({
      amount: order.total,
      currency: order.currency,
      metadata: { storeId: order.storeId, orderId: order.orderId, cartId: order.cartId },
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
  storeId: string;
  currency: string;
  /** The market it is priced in (decision `markets`), with its conversion of the store's amounts and the buyer's prices. */
  market: Market & { convert: ((amount: number) => number) | undefined; buyer: ReadPricing | null };
  orderId: string;
  idempotencyKey: string;
  input: CheckoutInput;
  holder: Holder;
  intent: Intent;
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
  const discount = await reserveAtQuotedPrices(tx, p);
  if (discount) await useDiscount(tx, p.storeId, discount, p.input.discountCode ?? '', p.now);
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
  // Last: the store's order counter stays locked from this statement to the commit (decision `order-numbers`).
  return writeOrder(tx, {
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
    discountCode: discount?.code ?? null,
    shippingAddress: p.input.shippingAddress ?? null,
    billingAddress: p.input.billingAddress ?? null,
    shippingMethod: p.quoted.shipping.method && {
      id: p.quoted.shipping.method.id,
      name: p.quoted.shipping.method.name,
      minDeliveryDays: p.quoted.shipping.method.minDeliveryDays,
      maxDeliveryDays: p.quoted.shipping.method.maxDeliveryDays,
    },
    phone: p.input.phone ?? null,
    intent: p.intent,
    now: p.now,
  });
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

const validation = (pointer: string, detail: string): AppError =>
  validationFailed('The checkout request is invalid.', [{ pointer, detail }]);

/**
 * What the cart brings to its checkout (decisions `cart-shipping-and-totals` and `checkout-with-shipping`): its address, its discount code and its shipping
 * method, each unless the body gives its own, and the destination country (the body's `country`
 * must be the address's).
 */
function cartChoices(input: CheckoutInput, cart: CartRow): CheckoutInput {
  const address = input.shippingAddress ?? cart.shipping_address ?? undefined;
  if (input.country !== undefined && address !== undefined && address.country !== input.country)
    throw validation('/country', `must be the country of the shipping address (${address.country})`);
  return {
    ...input,
    country: input.country ?? address?.country,
    shippingAddress: address,
    discountCode: input.discountCode ?? cart.discount_code ?? undefined,
    shippingMethodId: input.shippingMethodId ?? cart.shipping_method_id ?? undefined,
  };
}

/**
 * Why a priced checkout cannot go on, if it cannot: its shipping (decision `checkout-with-shipping`), a line no longer sellable,
 * or the stock pre-check (decision `checkout-after-a-crash`, on the availability the quote read with the prices).
 */
function refusalOf(quoted: Quote, input: CheckoutInput, requireShipping: boolean): AppError | null {
  const shipping = shippingRefusal(quoted, input, requireShipping);
  if (shipping) return shipping;
  if (quoted.missing.length > 0)
    return insufficientStock(quoted.missing.map((m) => ({ ...m, available: 0 })));
  const short = quoted.lines
    .filter((line) => line.available < line.quantity)
    .map((line) => ({ variantId: line.variantId, requested: line.quantity, available: line.available }))
    .sort((a, b) => (a.variantId < b.variantId ? -1 : a.variantId > b.variantId ? 1 : 0));
  return short.length > 0 ? insufficientStock(short) : null;
}

/**
 * The shipping rules of decision `checkout-with-shipping` on a priced checkout. When a line requires shipping: a store that
 * requires an address wants one (400 `/shippingAddress`) and a method (400 `/shippingMethodId`); an
 * address no method of the store reaches is 409 `shipping_unavailable` (a store with no zones at
 * all ships free, as before zones existed); a chosen method that is not one of the options is 409
 * `shipping_method_unavailable`.
 */
function shippingRefusal(quoted: Quote, input: CheckoutInput, requireShipping: boolean): AppError | null {
  const { parcel, rates, chosenUnavailable } = quoted.shipping;
  if (!parcel.shipped) return null;
  if (requireShipping && input.shippingAddress === undefined)
    return validation('/shippingAddress', 'is required: the store ships these goods to an address');
  if (input.shippingAddress !== undefined && rates !== null && rates.configured && rates.options.length === 0)
    return new AppError(
      'shipping_unavailable',
      409,
      `The store does not ship this order to ${input.shippingAddress.country}: no shipping method reaches the address.`,
    );
  if (chosenUnavailable)
    return new AppError(
      'shipping_method_unavailable',
      409,
      'The shipping method no longer fits the cart or its address: choose another from its shipping options.',
    );
  if (requireShipping && input.shippingMethodId === undefined)
    return validation('/shippingMethodId', "is required: choose one of the cart's shipping options");
  return null;
}

/**
 * The cart, completed and locked; it must still be the version that was quoted (its lines are then
 * the ones quoted: every change of a line bumps the version).
 */
async function completeUnchangedCart(tx: InTransaction, p: PlaceOrder): Promise<void> {
  if (!(await completeCart(tx, p.storeId, p.input.cartId, p.cartVersion, p.now))) throw new QuoteChanged();
}

/**
 * Reserves every line (the atomic reservation decides, decision `stock-reservation`). Each reservation returns, under its row
 * lock, the variant's price and whether its product is active; both hold until commit, so each
 * line must still be sellable at its quoted price (decision `quote-checked-by-reservations`). The
 * discount is checked again when its use is counted; the tax rate is the quote's. Returns the
 * discount to count.
 */
async function reserveAtQuotedPrices(tx: InTransaction, p: PlaceOrder): Promise<UsableDiscount | null> {
  const reserved = await reserveStock(tx.db, p.storeId, p.quoted.lines, p.now);
  // In another market than the default, the prices there now, read under the reservations' locks
  // (a price change of a variant waits for them): decision `market-prices`.
  const pricing = p.market.buyer;
  const inMarket =
    pricing === null
      ? null
      : await marketPricesNow(
          tx.db,
          p.storeId,
          pricing,
          p.quoted.lines.map((line) => line.variantId),
        );
  const left = new Map<string, number>();
  for (const line of p.quoted.lines) {
    const found = reserved.get(line.variantId);
    const price = inMarket ? inMarket.get(line.variantId)?.priceAmount : found?.priceAmount;
    if (!found?.sellable || price !== line.unitPrice) throw new QuoteChanged();
    left.set(line.variantId, found.available);
  }
  p.left = left;
  return p.quoted.discount;
}
