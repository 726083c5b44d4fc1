import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Log } from '../lib/log.ts';
import { cartCompleted, findCart, sellableVariants } from '../carts/carts.service.ts';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import type { Clock } from '../http/context.ts';
import { AppError } from '../http/errors.ts';
import {
  ProviderError,
  providerUnavailable,
  type Intent,
  type PaymentProvider,
} from '../payments/provider.ts';
import type { DiscountRow } from './orders.tables.ts';
import { orderView, type OrderView } from './orders.service.ts';
import { computeTotals, type Totals } from './pricing.ts';

export const FIRST_ORDER_NUMBER = 1001;

export interface CheckoutInput {
  cartId: string;
  email: string;
  country?: string | undefined;
  discountCode?: string | undefined;
}

export interface CheckoutDeps {
  db: Kysely<Database>;
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
    status: 'pending';
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
    db,
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
      productId: variant.product_id,
      title: variant.title,
      label: variant.label,
      sku: variant.sku,
      quantity: item.quantity,
      unitPrice: variant.price_amount,
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
 * Checkout (spec 4.2, DESIGN D7/D8).
 *
 * Order of operations, chosen so that no failure can leave reserved stock, a half order, or a
 * charge without an order:
 *
 * 1. Quote the cart from the database (read only).
 * 2. Create the payment intent at the provider for that amount (with a provider idempotency key
 *    per order id, so the SDK's network retries never create a second intent). A provider failure
 *    ends the checkout here: 502, nothing written, nothing reserved.
 * 3. One transaction: lock the cart, reserve every line with a conditional UPDATE in variant-id
 *    order (no deadlocks; any short line aborts everything), count the discount use, take the next
 *    order number, write the order, its lines and the payment, mark the cart completed, record
 *    order.created and inventory.updated. If the prices changed since step 1, the transaction is
 *    abandoned and the checkout starts over with a new quote.
 * 4. If step 3 fails, the intent is cancelled. Its client secret was never given out, so it could
 *    not have been confirmed: no charge without an order.
 */
export async function checkout(
  deps: CheckoutDeps,
  storeId: string,
  input: CheckoutInput,
): Promise<CheckoutResult> {
  const store = await deps.db
    .selectFrom('stores')
    .select('currency')
    .where('id', '=', storeId)
    .executeTakeFirstOrThrow();
  const currency = store.currency.trim();

  for (let attempt = 1; ; attempt++) {
    const cart = await findCart(deps.db, storeId, input.cartId);
    if (cart.completed_at !== null) throw cartCompleted();
    if (cart.items.length === 0) throw cartEmpty();
    const now = deps.clock.now();
    const quoted = await quote(deps.db, storeId, input, cart.items, now);
    if (quoted.missing.length > 0)
      throw insufficientStock(quoted.missing.map((m) => ({ ...m, available: 0 })));

    const orderId = randomUUID();
    let intent: Intent;
    try {
      intent = await deps.provider.createIntent({
        amount: quoted.totals.total,
        currency,
        metadata: { storeId, orderId, cartId: cart.id },
        idempotencyKey: `checkout:${storeId}:${orderId}`,
      });
    } catch (error) {
      deps.log.warn(
        { err: error instanceof ProviderError ? error.message : error, storeId },
        'payment provider failed at checkout',
      );
      throw providerUnavailable();
    }

    try {
      return await deps.db.transaction().execute((trx) =>
        placeOrder(trx, deps, {
          storeId,
          currency,
          orderId,
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

interface PlaceOrder {
  storeId: string;
  currency: string;
  orderId: string;
  input: CheckoutInput;
  intent: Intent;
  quoted: Awaited<ReturnType<typeof quote>>;
  cartVersion: number;
  now: Date;
}

async function placeOrder(
  trx: Transaction<Database>,
  deps: CheckoutDeps,
  p: PlaceOrder,
): Promise<CheckoutResult> {
  const { storeId, currency, orderId, input, intent, now } = p;
  const cart = await findCart(trx, storeId, input.cartId, { forUpdate: true });
  if (cart.completed_at !== null) throw cartCompleted();
  if (cart.version !== p.cartVersion) throw new QuoteChanged();

  // Reserve in variant-id order so concurrent checkouts lock rows in the same order.
  const lines = [...p.quoted.lines].sort((a, b) =>
    a.variantId < b.variantId ? -1 : a.variantId > b.variantId ? 1 : 0,
  );
  const short: { variantId: string; requested: number; available: number }[] = [];
  const reserved: { variantId: string; productId: string; available: number }[] = [];
  for (const line of lines) {
    const row = await trx
      .updateTable('variants')
      .set((eb) => ({ reserved: eb('reserved', '+', line.quantity), updated_at: now }))
      .where('store_id', '=', storeId)
      .where('id', '=', line.variantId)
      .where(sql<boolean>`on_hand - reserved >= ${line.quantity}`)
      .returning(['on_hand', 'reserved', 'price_amount'])
      .executeTakeFirst();
    if (!row) {
      const current = await trx
        .selectFrom('variants')
        .select(['on_hand', 'reserved'])
        .where('store_id', '=', storeId)
        .where('id', '=', line.variantId)
        .executeTakeFirst();
      short.push({
        variantId: line.variantId,
        requested: line.quantity,
        available: current ? Math.max(0, current.on_hand - current.reserved) : 0,
      });
      continue;
    }
    if (row.price_amount !== line.unitPrice) throw new QuoteChanged();
    reserved.push({
      variantId: line.variantId,
      productId: line.productId,
      available: Math.max(0, row.on_hand - row.reserved),
    });
  }
  if (short.length > 0) throw insufficientStock(short);

  // The quote's discount, tax rate and prices must still hold inside the transaction.
  const requote = await quote(trx, storeId, input, cart.items, now);
  if (requote.missing.length > 0 || !sameTotals(requote.totals, p.quoted.totals)) throw new QuoteChanged();
  if (requote.discount) {
    const used = await trx
      .updateTable('discounts')
      .set((eb) => ({ used_count: eb('used_count', '+', 1), updated_at: now }))
      .where('store_id', '=', storeId)
      .where('id', '=', requote.discount.id)
      .where((eb) => eb.or([eb('usage_limit', 'is', null), eb('used_count', '<', eb.ref('usage_limit'))]))
      .returning('id')
      .executeTakeFirst();
    if (!used) throw discountInvalid(input.discountCode ?? '');
  }

  // The counter row is locked only from here to commit: order numbers are strictly increasing.
  const counter = await trx
    .insertInto('order_counters')
    .values({ store_id: storeId, last_number: FIRST_ORDER_NUMBER })
    .onConflict((oc) =>
      oc.column('store_id').doUpdateSet((eb) => ({ last_number: eb('order_counters.last_number', '+', 1) })),
    )
    .returning('last_number')
    .executeTakeFirstOrThrow();

  const totals = p.quoted.totals;
  const order = await trx
    .insertInto('orders')
    .values({
      store_id: storeId,
      id: orderId,
      number: counter.last_number,
      status: 'pending',
      cart_id: cart.id,
      email: input.email.trim().toLowerCase(),
      country: input.country ?? null,
      currency,
      subtotal_amount: totals.subtotal,
      discount_amount: totals.discount,
      tax_amount: totals.tax,
      shipping_amount: totals.shipping,
      total_amount: totals.total,
      discount_code: requote.discount?.code ?? null,
      expires_at: new Date(now.getTime() + deps.orderTtlMs),
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const orderLines = await trx
    .insertInto('order_lines')
    .values(
      p.quoted.lines.map((line, position) => ({
        store_id: storeId,
        order_id: orderId,
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
  await trx
    .insertInto('payments')
    .values({
      store_id: storeId,
      order_id: orderId,
      provider: deps.provider.name,
      ref: intent.ref,
      client_secret: intent.clientSecret,
      status: 'pending',
      amount: totals.total,
      currency,
      last_error: null,
    })
    .execute();
  await trx
    .updateTable('carts')
    .set({ completed_at: now, updated_at: now })
    .where('store_id', '=', storeId)
    .where('id', '=', cart.id)
    .execute();

  await recordEvent(trx, {
    storeId,
    type: 'order.created',
    data: { orderId, number: order.number, status: 'pending', total: { amount: totals.total, currency } },
  });
  for (const item of reserved) {
    await recordEvent(trx, {
      storeId,
      type: 'inventory.updated',
      data: { variantId: item.variantId, productId: item.productId, available: item.available },
    });
  }
  return {
    order: orderView(order, orderLines),
    payment: {
      provider: deps.provider.name,
      ref: intent.ref,
      status: 'pending',
      clientSecret: intent.clientSecret,
      amount: { amount: totals.total, currency },
    },
  };
}

export function insufficientStock(
  lines: { variantId: string; requested: number; available: number }[],
): AppError {
  return new AppError(
    'insufficient_stock',
    409,
    'Some items are not available in the quantity requested. Nothing was reserved.',
    {
      errors: lines.map((line) => ({
        pointer: '/cartId',
        detail: `variant ${line.variantId}: ${line.requested} requested, ${line.available} available`,
        variantId: line.variantId,
        requested: line.requested,
        available: line.available,
      })),
    },
  );
}
