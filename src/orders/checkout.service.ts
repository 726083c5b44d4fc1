import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Log } from '../lib/log.ts';
import { cartCompleted, completeCart, findCart } from '../carts/carts.service.ts';
import { findShortfalls, insufficientStock, reserveStock } from '../catalog/inventory.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { Keyring, type SealedValues } from '../lib/keyring.ts';
import type { Database } from '../db/tables.ts';
import { sellableVariants } from '../catalog/sellable.ts';
import { recordEvent } from '../events/events.ts';
import {
  ProviderError,
  providerUnavailable,
  type Intent,
  type PaymentProvider,
} from '../payments/provider.ts';
import type { DiscountRow, OrderLineRow, OrderRow, PaymentRow, PaymentStatus } from './orders.tables.ts';
import { loadOrder, orderView, type OrderView } from './orders.service.ts';
import { computeTotals, type Totals } from './pricing.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../lib/errors.ts';

export const FIRST_ORDER_NUMBER = 1001;

export interface CheckoutInput {
  cartId: string;
  email: string;
  country?: string | undefined;
  discountCode?: string | undefined;
}

export interface CheckoutDeps {
  db: Kysely<Database>;
  /** Seals the payment's client secret (D28: it never rests in plaintext). */
  keyring: Keyring;
  clock: Clock;
  provider: PaymentProvider;
  orderTtlMs: number;
  log: Log;
}

export interface CheckoutResult {
  order: OrderView;
  payment: {
    provider: string;
    ref: string;
    status: PaymentStatus;
    clientSecret: string;
    amount: { amount: number; currency: string };
  };
}

interface Line {
  variantId: string;
  productId: string;
  title: string;
  label: string;
  sku: string | null;
  quantity: number;
  unitPrice: number;
}

const discountInvalid = (code: string): AppError =>
  new AppError(
    'discount_invalid',
    409,
    `The discount code "${code}" is unknown, not active at this time, or used up.`,
    {
      errors: [{ pointer: '/discountCode', detail: 'is not valid now' }],
    },
  );

const cartEmpty = (): AppError =>
  new AppError('cart_empty', 409, 'The cart has no items that can be bought.');

/** Why a checkout must be priced again: the catalog changed between quoting and reserving. */
class QuoteChanged extends Error {}

export function normalizeDiscountCode(code: string): string {
  return code.trim().toUpperCase();
}

function discountUsable(row: DiscountRow, now: Date): boolean {
  if (row.starts_at && row.starts_at > now) return false;
  if (row.ends_at && row.ends_at <= now) return false;
  return row.usage_limit === null || row.used_count < row.usage_limit;
}

/** Prices the cart and order from the database (never from the client). */
async function quote(
  db: Kysely<Database> | Transaction<Database>,
  storeId: string,
  input: CheckoutInput,
  items: { variantId: string; quantity: number }[],
  now: Date,
) {
  const variants = await sellableVariants(
    { db },
    storeId,
    items.map((i) => i.variantId),
  );
  const lines: Line[] = [];
  const missing: { variantId: string; requested: number }[] = [];
  for (const item of items) {
    const variant = variants.get(item.variantId);
    if (!variant) {
      missing.push({ variantId: item.variantId, requested: item.quantity });
      continue;
    }
    lines.push({
      variantId: item.variantId,
      productId: variant.productId,
      title: variant.title,
      label: variant.label,
      sku: variant.sku,
      quantity: item.quantity,
      unitPrice: variant.priceAmount,
    });
  }
  let discount: DiscountRow | null = null;
  if (input.discountCode !== undefined) {
    const code = normalizeDiscountCode(input.discountCode);
    discount =
      (await db
        .selectFrom('discounts')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('code', '=', code)
        .executeTakeFirst()) ?? null;
    if (!discount || !discountUsable(discount, now)) throw discountInvalid(input.discountCode);
  }
  const rate = input.country
    ? await db
        .selectFrom('tax_rates')
        .select(['tax_rate_bps', 'shipping_amount'])
        .where('store_id', '=', storeId)
        .where('country', '=', input.country)
        .executeTakeFirst()
    : undefined;
  const totals = computeTotals({
    lines,
    discount: discount ? { kind: discount.kind, value: discount.value } : null,
    taxRateBps: rate?.tax_rate_bps ?? 0,
    shippingAmount: rate?.shipping_amount ?? 0,
  });
  return { lines, missing, discount, totals };
}

const sameTotals = (a: Totals, b: Totals): boolean =>
  a.subtotal === b.subtotal &&
  a.discount === b.discount &&
  a.tax === b.tax &&
  a.shipping === b.shipping &&
  a.total === b.total;

/**
 * The answer of a checkout that already happened: the order made with this Idempotency-Key (D25),
 * as it stands now, with its payment. Null when no order carries the key.
 */
export async function checkoutOfKey(
  { db, keyring }: Pick<CheckoutDeps, 'db' | 'keyring'>,
  storeId: string,
  idempotencyKey: string,
): Promise<CheckoutResult | null> {
  const order = await db
    .selectFrom('orders')
    .select('id')
    .where('store_id', '=', storeId)
    .where('idempotency_key', '=', idempotencyKey)
    .executeTakeFirst();
  if (!order) return null;
  const { order: row, lines, payments } = await loadOrder(db, storeId, order.id);
  const payment = payments.at(-1);
  if (!payment) return null;
  return checkoutResult(row, lines, payment, keyring);
}

const CLIENT_SECRET_PURPOSE = 'payment-client-secrets';
const clientSecretContext = (payment: Pick<PaymentRow, 'store_id' | 'provider' | 'ref'>): string =>
  `${payment.store_id}:${payment.provider}:${payment.ref}`;

/** The stored client secret, opened (a value stored before sealing is read as it is). */
function openClientSecret(keyring: Keyring, payment: PaymentRow): string {
  return Keyring.isSealed(payment.client_secret)
    ? keyring.open(
        CLIENT_SECRET_PURPOSE,
        payment.client_secret,
        clientSecretContext(payment),
        `The client secret of payment ${payment.ref}`,
      )
    : payment.client_secret;
}

function checkoutResult(
  order: OrderRow,
  lines: OrderLineRow[],
  payment: PaymentRow,
  keyring: Keyring,
): CheckoutResult {
  return {
    order: orderView(order, lines),
    payment: {
      provider: payment.provider,
      ref: payment.ref,
      status: payment.status,
      clientSecret: openClientSecret(keyring, payment),
      amount: { amount: payment.amount, currency: payment.currency.trim() },
    },
  };
}

/**
 * Checkout (spec 4.2, DESIGN D7, D8, D25).
 *
 * Order of operations, chosen so that no failure can leave reserved stock, a half order, or a
 * charge without an order:
 *
 * 1. An order that already carries this Idempotency-Key is the answer (a retry after a crash).
 * 2. Quote the cart from the database and pre-check its stock, both without locks: a checkout
 *    that cannot succeed is refused before the provider is called (D25).
 * 3. Create the payment intent at the provider for that amount (with a provider idempotency key
 *    per order id, so the SDK's network retries never create a second intent). A provider failure
 *    ends the checkout here: 502, nothing written, nothing reserved.
 * 4. One transaction (placeOrder): lock the cart, reserve every line, check the quote still holds,
 *    count the discount use, take the next order number, write the order (with its key), its lines
 *    and the payment, complete the cart, record order.created. The atomic reservation decides.
 * 5. If step 4 fails, the intent is cancelled. Its client secret was never given out, so it could
 *    not have been confirmed: no charge without an order.
 */
export async function checkout(
  deps: CheckoutDeps,
  storeId: string,
  input: CheckoutInput,
  idempotencyKey: string,
): Promise<CheckoutResult> {
  const made = await checkoutOfKey(deps, storeId, idempotencyKey);
  if (made) return made;
  const store = await deps.db
    .selectFrom('stores')
    .select('currency')
    .where('id', '=', storeId)
    .executeTakeFirstOrThrow();
  const currency = store.currency.trim();

  for (let attempt = 1; ; attempt++) {
    const cart = await findCart(deps, storeId, input.cartId);
    if (cart.completed_at !== null) throw cartCompleted();
    if (cart.items.length === 0) throw cartEmpty();
    const now = deps.clock.now();
    const quoted = await quote(deps.db, storeId, input, cart.items, now);
    if (quoted.missing.length > 0)
      throw insufficientStock(quoted.missing.map((m) => ({ ...m, available: 0 })));
    const short = await findShortfalls(deps.db, storeId, cart.items);
    if (short.length > 0) throw insufficientStock(short);

    const orderId = randomUUID();
    const intent = await createIntent(deps, {
      storeId,
      orderId,
      cartId: cart.id,
      currency,
      total: quoted.totals.total,
    });
    try {
      return await deps.db.transaction().execute((trx) =>
        placeOrder(trx, deps, {
          storeId,
          currency,
          orderId,
          idempotencyKey,
          input,
          intent,
          quoted,
          cartVersion: cart.version,
          now,
        }),
      );
    } catch (error) {
      await deps.provider.cancelIntent(intent.ref).catch((cancelError: unknown) => {
        deps.log.warn({ err: cancelError, ref: intent.ref }, 'could not cancel an unused payment intent');
      });
      // Another attempt with this key won the race (its lease had been taken over): its order is the answer.
      if (isUniqueViolation(error) || (error instanceof AppError && error.title === 'cart_completed')) {
        const winner = await checkoutOfKey(deps, storeId, idempotencyKey);
        if (winner) return winner;
      }
      if (error instanceof QuoteChanged && attempt < 3) continue;
      if (error instanceof QuoteChanged)
        throw new AppError(
          'cart_changed',
          409,
          'Prices changed while checking out. Review the cart and try again.',
        );
      throw error;
    }
  }
}

async function createIntent(
  deps: CheckoutDeps,
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
    deps.log.warn(
      { err: error instanceof ProviderError ? error.message : error, storeId: order.storeId },
      'payment provider failed at checkout',
    );
    throw providerUnavailable();
  }
}

interface PlaceOrder {
  storeId: string;
  currency: string;
  orderId: string;
  idempotencyKey: string;
  input: CheckoutInput;
  intent: Intent;
  quoted: Awaited<ReturnType<typeof quote>>;
  cartVersion: number;
  now: Date;
}

/** Step 4 of checkout, in its transaction. */
async function placeOrder(
  trx: Transaction<Database>,
  deps: CheckoutDeps,
  p: PlaceOrder,
): Promise<CheckoutResult> {
  const { storeId, input, now } = p;
  const cart = await findCart({ db: trx }, storeId, input.cartId, { forUpdate: true });
  if (cart.completed_at !== null) throw cartCompleted();
  if (cart.version !== p.cartVersion) throw new QuoteChanged();

  // The atomic reservation decides (D8); afterwards the variant rows are locked, so the prices
  // checked next cannot change before commit.
  await reserveStock(trx, storeId, p.quoted.lines, now);
  const requote = await quote(trx, storeId, input, cart.items, now);
  if (requote.missing.length > 0 || !sameTotals(requote.totals, p.quoted.totals)) throw new QuoteChanged();
  if (requote.discount) await useDiscount(trx, storeId, requote.discount.id, input.discountCode ?? '', now);

  const order = await insertOrder(
    trx,
    deps,
    p,
    cart.id,
    await nextOrderNumber(trx, storeId),
    requote.discount,
  );
  const lines = await trx
    .insertInto('order_lines')
    .values(
      p.quoted.lines.map((line, position) => ({
        store_id: storeId,
        order_id: p.orderId,
        position,
        variant_id: line.variantId,
        product_id: line.productId,
        title: line.title,
        variant_label: line.label,
        sku: line.sku,
        quantity: line.quantity,
        unit_price_amount: line.unitPrice,
        line_total_amount: line.unitPrice * line.quantity,
      })),
    )
    .returningAll()
    .execute();
  const payment = await trx
    .insertInto('payments')
    .values({
      store_id: storeId,
      order_id: p.orderId,
      provider: deps.provider.name,
      ref: p.intent.ref,
      client_secret: deps.keyring.seal(
        CLIENT_SECRET_PURPOSE,
        p.intent.clientSecret,
        clientSecretContext({ store_id: storeId, provider: deps.provider.name, ref: p.intent.ref }),
      ),
      status: 'pending',
      amount: order.total_amount,
      currency: p.currency,
      last_error: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await completeCart({ db: trx }, storeId, cart.id, now);
  await recordEvent(trx, {
    storeId,
    type: 'order.created',
    data: {
      orderId: p.orderId,
      number: order.number,
      status: 'pending',
      total: { amount: order.total_amount, currency: p.currency },
    },
  });
  return checkoutResult(order, lines, payment, deps.keyring);
}

async function useDiscount(
  trx: Transaction<Database>,
  storeId: string,
  discountId: string,
  code: string,
  now: Date,
): Promise<void> {
  const used = await trx
    .updateTable('discounts')
    .set((eb) => ({ used_count: eb('used_count', '+', 1), updated_at: now }))
    .where('store_id', '=', storeId)
    .where('id', '=', discountId)
    .where((eb) => eb.or([eb('usage_limit', 'is', null), eb('used_count', '<', eb.ref('usage_limit'))]))
    .returning('id')
    .executeTakeFirst();
  if (!used) throw discountInvalid(code);
}

/** The store's next order number (D6). Its counter row stays locked until commit: strictly increasing. */
async function nextOrderNumber(trx: Transaction<Database>, storeId: string): Promise<number> {
  const counter = await trx
    .insertInto('order_counters')
    .values({ store_id: storeId, last_number: FIRST_ORDER_NUMBER })
    .onConflict((oc) =>
      oc.column('store_id').doUpdateSet((eb) => ({ last_number: eb('order_counters.last_number', '+', 1) })),
    )
    .returning('last_number')
    .executeTakeFirstOrThrow();
  return counter.last_number;
}

async function insertOrder(
  trx: Transaction<Database>,
  deps: CheckoutDeps,
  p: PlaceOrder,
  cartId: string,
  number: number,
  discount: DiscountRow | null,
): Promise<OrderRow> {
  const totals = p.quoted.totals;
  const expiresAt = new Date(p.now.getTime() + deps.orderTtlMs);
  return trx
    .insertInto('orders')
    .values({
      store_id: p.storeId,
      id: p.orderId,
      number,
      status: 'pending',
      cart_id: cartId,
      email: p.input.email.trim().toLowerCase(),
      country: p.input.country ?? null,
      currency: p.currency,
      subtotal_amount: totals.subtotal,
      discount_amount: totals.discount,
      tax_amount: totals.tax,
      shipping_amount: totals.shipping,
      total_amount: totals.total,
      discount_code: discount?.code ?? null,
      idempotency_key: p.idempotencyKey,
      expires_at: expiresAt,
      next_sweep_at: expiresAt,
      created_at: p.now,
      updated_at: p.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

type PaymentSecretRow = Pick<PaymentRow, 'store_id' | 'id' | 'provider' | 'ref' | 'client_secret'>;

/** Every payment's client secret (plaintext ones from before sealing included), for `secrets rotate`. */
export function paymentClientSecrets(db: Kysely<Database>, keyring: Keyring): SealedValues<PaymentSecretRow> {
  return {
    what: 'payment client secrets',
    batch: (after, limit) =>
      db
        .selectFrom('payments')
        .select(['store_id', 'id', 'provider', 'ref', 'client_secret'])
        .$if(after !== undefined, (qb) =>
          qb.where((eb) => eb(eb.refTuple('store_id', 'id'), '>', eb.tuple(after!.store_id, after!.id))),
        )
        .orderBy('store_id')
        .orderBy('id')
        .limit(limit)
        .execute(),
    async reseal(row, dryRun) {
      if (keyring.isCurrent(CLIENT_SECRET_PURPOSE, row.client_secret)) return false;
      const plain = Keyring.isSealed(row.client_secret)
        ? keyring.open(
            CLIENT_SECRET_PURPOSE,
            row.client_secret,
            clientSecretContext(row),
            `The client secret of payment ${row.ref}`,
          )
        : row.client_secret;
      if (!dryRun) {
        await db
          .updateTable('payments')
          .set({ client_secret: keyring.seal(CLIENT_SECRET_PURPOSE, plain, clientSecretContext(row)) })
          .where('store_id', '=', row.store_id)
          .where('id', '=', row.id)
          .execute();
      }
      return true;
    },
  };
}
