/**
 * The admin client's order helpers after the sale (decisions `fulfilments`, `order-cancellation` and `returns`) against the real service: fulfil,
 * change and cancel a shipment, preview and record a return, cancel an order; a refusal is a
 * StorefrontError with the problem's title.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StorefrontError } from '@storefront/client';
import {
  createProduct,
  openShop,
  rejection,
  startedForFile,
  startLiveApp,
  type Shop,
} from './server.test-support.ts';

const live = startedForFile(startLiveApp);

/** A paid order of 2 units at 2,500. */
async function paidOrder(shop: Shop): Promise<{ orderId: string; variantId: string }> {
  const product = await createProduct(shop.admin, { priceAmount: 2500, onHand: 5 });
  const variantId = product.variants[0]!.id;
  const cart = await shop.storefront.carts.create({ items: [{ variantId, quantity: 2 }] });
  const { order, payment } = await shop.storefront.checkout.create({
    cartId: cart.id,
    email: 'b@example.com',
  });
  await shop.storefront.sandbox.confirm(payment, 'pm_card_visa');
  await shop.storefront.orders.waitForPaid(order.id, { timeoutMs: 10_000, intervalMs: 50 });
  return { orderId: order.id, variantId };
}

describe('admin.orders after the sale', () => {
  test('fulfil, track, return with the previewed refund; a shipped order is not cancelled; cancel the next', async () => {
    const shop = await openShop(live);
    const { orderId, variantId } = await paidOrder(shop);

    const parcel = await shop.admin.orders.fulfil(orderId, {
      lines: [{ variantId, quantity: 2 }],
      carrier: 'UPS',
      trackingNumber: '1Z999AA10123456784',
    });
    assert.equal(parcel.trackingUrl, 'https://www.ups.com/track?tracknum=1Z999AA10123456784');
    const delivered = await shop.admin.orders.updateFulfillment(orderId, parcel.id, { status: 'delivered' });
    assert.equal(delivered.status, 'delivered');

    const preview = await shop.admin.orders.previewReturn(orderId, { lines: [{ variantId, quantity: 1 }] });
    assert.deepEqual(preview.refundAmount, { amount: 2500, currency: 'USD' });
    const received = await shop.admin.orders.createReturn(orderId, { lines: [{ variantId, quantity: 1 }] });
    assert.deepEqual(received.refundAmount, preview.refundAmount);
    assert.deepEqual(received.lines, [{ variantId, quantity: 1, restock: true }]);
    assert.deepEqual(
      (await shop.admin.orders.get(orderId)).returns.map((r) => r.id),
      [received.id],
    );

    const refused = await rejection(shop.admin.orders.cancel(orderId));
    assert.ok(refused instanceof StorefrontError);
    assert.equal(refused.status, 409);
    assert.equal(refused.title, 'order_fulfilled');
    const delivered409 = await rejection(shop.admin.orders.cancelFulfillment(orderId, parcel.id));
    assert.ok(delivered409 instanceof StorefrontError);
    assert.equal(delivered409.title, 'fulfillment_delivered');

    const next = await paidOrder(shop);
    const cancelled = await shop.admin.orders.cancel(next.orderId, { reason: 'Asked by phone' });
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.cancelReason, 'Asked by phone');
    assert.deepEqual(
      cancelled.refunds.map((r) => [r.amount.amount, r.reason]),
      [[5000, 'order_cancelled']],
    );
    // Without a body, and again: the same order.
    const again = await shop.admin.orders.cancel(next.orderId);
    assert.equal(again.cancelledAt, cancelled.cancelledAt);
  });
});
