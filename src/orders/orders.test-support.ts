import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import type { Log } from '../lib/log.ts';
import { ordersDeps } from '../runtime.ts';
import type { OrdersDeps } from './orders.deps.ts';
import { createTestStore, waitFor, type TestApp, type TestStore } from '../test/harness.ts';

/** What a checkout answers. */
export interface CheckoutBody {
  order: { id: string; number: number; status: string; total: { amount: number; currency: string } };
  payment: { provider: string; ref: string; status: string; clientSecret: string };
}

/** A page of the staff's orders list, as the tests read it. */
export interface AdminOrdersPage {
  items: { id: string; number: number; email: string; status: string; fulfillmentStatus: string }[];
  nextCursor: string | null;
}

/** A store of a test app, driven through its HTTP API like a shop and its staff would. */
export class ShopDriver {
  readonly t: TestApp;
  readonly shop: TestStore;

  private constructor(t: TestApp, shop: TestStore) {
    this.t = t;
    this.shop = shop;
  }

  static async open(t: TestApp): Promise<ShopDriver> {
    return new ShopDriver(t, await createTestStore(t));
  }

  get storeId(): string {
    return this.shop.store.id;
  }

  admin(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: object) {
    return this.t.app.inject({
      method,
      url: `/admin/v1${url}`,
      headers: { authorization: `Bearer ${this.shop.staffToken}` },
      ...(payload ? { payload } : {}),
    });
  }

  storefront(
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    payload?: object,
    headers: Record<string, string> = {},
  ) {
    return this.t.app.inject({
      method,
      url: `/storefront/v1${url}`,
      headers: { 'x-publishable-key': this.shop.publishableKey, ...headers },
      ...(payload ? { payload } : {}),
    });
  }

  /** An active product with one variant; returns the variant id. */
  async variant(onHand: number, priceAmount = 1000): Promise<string> {
    const response = await this.admin('POST', '/products', {
      title: 'Thing',
      status: 'active',
      variants: [{ label: 'One', priceAmount, onHand }],
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ variants: { id: string }[] }>().variants[0]!.id;
  }

  async cart(items: { variantId: string; quantity: number }[]): Promise<string> {
    const response = await this.storefront('POST', '/carts', { items });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ id: string }>().id;
  }

  checkout(body: object, key: string = randomUUID()) {
    return this.storefront('POST', '/checkout', body, { 'idempotency-key': key });
  }

  /** Cart and checkout of `quantity` units of a variant; the order must be created. */
  async buy(variantId: string, quantity = 1): Promise<CheckoutBody> {
    const response = await this.checkout({
      cartId: await this.cart([{ variantId, quantity }]),
      email: 'buyer@example.com',
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<CheckoutBody>();
  }

  /**
   * A checkout of these lines by ada@example.com (with `extra` checkout fields), paid through the
   * sandbox when `pay` (the default); the checkout's answer.
   */
  async placeOrder(
    items: { variantId: string; quantity: number }[],
    { pay = true, ...extra }: { pay?: boolean } & Record<string, unknown> = {},
  ): Promise<CheckoutBody> {
    const placed = await this.checkout({
      cartId: await this.cart(items),
      email: 'ada@example.com',
      ...extra,
    });
    assert.equal(placed.statusCode, 201, placed.body);
    const body = placed.json<CheckoutBody>();
    if (pay) {
      await this.confirm(body);
      await this.waitForStatus(body.order.id, 'paid');
    }
    return body;
  }

  /** The sandbox's hosted confirmation, as the buyer's browser would call it. */
  async confirm(body: CheckoutBody, paymentMethod = 'pm_card_visa'): Promise<void> {
    const response = await this.t.app.inject({
      method: 'POST',
      url: `/sandbox/v1/payments/${body.payment.ref}/confirm`,
      payload: { clientSecret: body.payment.clientSecret, paymentMethod },
    });
    assert.equal(response.statusCode, 200, response.body);
  }

  /**
   * The order's payment went through at the provider after the order expired (its intent could not
   * be cancelled in time): the sandbox intent is marked succeeded and its signed
   * `payment_intent.succeeded` webhook is delivered (answered 200).
   */
  async latePaymentSucceeded(bought: CheckoutBody): Promise<void> {
    await this.t.db.kysely
      .updateTable('sandbox_intents')
      .set({ status: 'succeeded' })
      .where('ref', '=', bought.payment.ref)
      .execute();
    const webhook = JSON.stringify({
      id: `evt_late_${randomUUID()}`,
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: {
        ref: bought.payment.ref,
        amount: bought.order.total.amount,
        currency: 'USD',
        metadata: { storeId: this.storeId, orderId: bought.order.id },
      },
    });
    const delivered = await this.t.app.inject({
      method: 'POST',
      url: '/payments/webhooks/sandbox',
      headers: {
        'content-type': 'application/json',
        'sandbox-signature': this.t.runtime.payments.sandbox!.sign(webhook),
      },
      payload: webhook,
    });
    assert.equal(delivered.statusCode, 200, delivered.body);
  }

  async order(orderId: string) {
    const response = await this.storefront('GET', `/orders/${orderId}`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ status: string; refunded: { amount: number }; payment: { status: string } }>();
  }

  async adminOrder(orderId: string) {
    const response = await this.admin('GET', `/orders/${orderId}`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{
      status: string;
      oversold: boolean;
      refunded: { amount: number };
      payments: { status: string }[];
      refunds: {
        id: string;
        status: string;
        amount: { amount: number };
        reason: string;
        lastError: string | null;
      }[];
    }>();
  }

  /** A page of the staff's orders list (`GET /admin/v1/orders`) with this query; it must answer 200. */
  async listOrders(query: Record<string, string>): Promise<AdminOrdersPage> {
    const response = await this.admin('GET', `/orders?${new URLSearchParams(query).toString()}`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json<AdminOrdersPage>();
  }

  /** The numbers of every order the list gives for `query`, following its cursors `limit` at a time. */
  async orderNumbersPaged(query: Record<string, string>, limit: number): Promise<number[]> {
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: AdminOrdersPage = await this.listOrders({
        ...query,
        limit: String(limit),
        ...(cursor ? { cursor } : {}),
      });
      assert.ok(page.items.length <= limit);
      seen.push(...page.items.map((order) => order.number));
      cursor = page.nextCursor;
    } while (cursor);
    return seen;
  }

  async waitForStatus(orderId: string, status: string): Promise<void> {
    await waitFor(async () => (await this.order(orderId)).status === status, 5000, `order ${status}`);
  }

  /** The data of this store's events of one type, oldest first. */
  async events(type: string): Promise<Record<string, unknown>[]> {
    const rows = await this.t.db.kysely
      .selectFrom('events')
      .select(['data'])
      .where('store_id', '=', this.storeId)
      .where('type', '=', type as never)
      .orderBy('created_at')
      .execute();
    return rows.map((row) => row.data);
  }

  /** This store's queued mail of one kind. */
  mails(kind: string): Promise<{ to_address: string; subject: string; text_body: string }[]> {
    return this.t.db.kysely
      .selectFrom('mail_outbox')
      .select(['to_address', 'subject', 'text_body'])
      .where('store_id', '=', this.storeId)
      .where('kind', '=', kind)
      .execute();
  }

  async stock(variantId: string): Promise<{ on_hand: number; reserved: number }> {
    return this.t.db.kysely
      .selectFrom('variants')
      .select(['on_hand', 'reserved'])
      .where('store_id', '=', this.storeId)
      .where('id', '=', variantId)
      .executeTakeFirstOrThrow();
  }
}

/** Orders' deps, as the worker loops get them, for calling sweeps and the money path directly. */
export const paymentDeps = (t: TestApp, log: Log = pino({ level: 'silent' })): OrdersDeps =>
  ordersDeps(t.runtime, log);

/** A logger that keeps every line it writes, parsed. */
export function capturingLog(): { log: Log; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = pino(
    { level: 'debug' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { log, lines };
}
