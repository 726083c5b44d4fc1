/**
 * Draft orders priced by checkout's own quote (decision `draft-orders`): for the same lines, customer,
 * address and method, a draft's totals, line shares and taxes equal what checkout charges: a group
 * member's price-list price, a market's currency, tax, an automatic promotion, shipping. Then what
 * only drafts have: a price staff set, custom lines with their tax class, custom shipping, and
 * staff's discount shared over the lines like every discount.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ok } from '../test/answers.ts';
import { signInCustomer } from '../test/customers.ts';
import { clientAddresses, createTestStore, startTestApp, type TestApp } from '../test/harness.ts';

let t: TestApp;
before(async () => (t = await startTestApp({ workers: true })));
after(() => t.close());

interface Money {
  amount: number;
  currency: string;
}
interface Totals {
  subtotal: Money;
  discount: Money;
  shipping: Money;
  tax: Money;
  total: Money;
  taxIncluded: boolean;
}
interface Draft {
  id: string;
  currency: string;
  totals: Totals;
  lines: {
    unitPrice: Money;
    discount: Money;
    tax: { amount: number; rateBps: number; class: string };
    custom: boolean;
  }[];
  promotions: { name: string; amount: Money }[];
  discount: { amount: Money; reason: string } | null;
  shipping: { id: string | null; name: string; amount: Money } | null;
}
interface Order {
  subtotal: Money;
  discount: Money;
  shipping: Money;
  tax: Money;
  total: Money;
  lines: { unitPrice: Money; discount: Money; tax: { amount: number; rateBps: number; class: string } }[];
}

const client = clientAddresses();

const BERLIN = {
  name: 'Ada Lovelace',
  line1: 'Unter den Linden 1',
  city: 'Berlin',
  postalCode: '10117',
  country: 'DE',
};

/**
 * A USD store selling in Europe (DE, EUR at 0.92, prices including 19 % tax), a shirt (30.00) and a
 * mug (10.00); a Wholesale group whose list prices the shirt at 20.00 EUR; 10 % off automatically
 * over 20.00; a flat 5.00 to Germany; a signed-in member of the group.
 */
async function store() {
  const shop = await createTestStore(t, { currency: 'USD' });
  const admin = t.admin(shop);
  const product = async (title: string, priceAmount: number) =>
    (
      await ok<{ variants: { id: string }[] }>(
        admin.post('/products', {
          title,
          status: 'active',
          variants: [{ label: title, priceAmount, onHand: 20 }],
        }),
        201,
      )
    ).variants[0]!.id;
  const shirt = await product('Shirt', 3000);
  const mug = await product('Mug', 1000);
  await ok(admin.put('/tax-rates/DE', { taxRateBps: 1900 }));
  await ok(admin.post('/tax-classes', { code: 'reduced', name: 'Reduced' }), 201);
  await ok(admin.put('/tax-rates/DE', { taxRateBps: 1900, classRates: { reduced: 700 } }));
  const europe = await ok<{ id: string }>(
    admin.post('/markets', {
      name: 'Europe',
      countries: ['DE'],
      currency: 'EUR',
      exchangeRate: '0.92',
      pricesIncludeTax: true,
    }),
    201,
  );
  const group = await ok<{ id: string }>(admin.post('/customer-groups', { name: 'Wholesale' }), 201);
  await ok(
    admin.post('/price-lists', {
      name: 'Wholesale',
      kind: 'override',
      customerGroupIds: [group.id],
      marketIds: [europe.id],
      prices: [{ variantId: shirt, currency: 'EUR', amount: 2000 }],
    }),
    201,
  );
  await ok(
    admin.post('/promotions', {
      name: '10 % off over 20',
      automatic: true,
      conditions: { minSubtotal: 2000 },
      action: { kind: 'percent', value: 10 },
    }),
    201,
  );
  const zone = await ok<{ id: string }>(
    admin.post('/shipping/zones', { name: 'DE', areas: [{ country: 'DE' }] }),
    201,
  );
  const method = await ok<{ id: string }>(
    admin.post(`/shipping/zones/${zone.id}/methods`, { name: 'DHL', kind: 'flat', amount: 500 }),
    201,
  );
  const session = await signInCustomer(t, shop, { ip: client() });
  await ok(admin.put(`/customers/${session.customer.id}/groups`, { groupIds: [group.id] }));
  return {
    shop,
    admin,
    shirt,
    mug,
    method: method.id,
    member: { token: session.token, id: session.customer.id },
  };
}

describe('draft orders priced as checkout prices', () => {
  test('a group member’s draft in a market equals their checkout: list price, currency, tax, promotion, shipping', async () => {
    const { shop, admin, shirt, mug, method, member } = await store();
    const items = [
      { variantId: shirt, quantity: 2 },
      { variantId: mug, quantity: 1 },
    ];
    const draft = await ok<Draft>(
      admin.post('/draft-orders', {
        customerId: member.id,
        lines: items,
        shippingAddress: BERLIN,
        shippingMethodId: method,
      }),
      201,
    );
    // The member's price list (20.00 EUR, not 30.00 × 0.92) and the mug converted.
    assert.equal(draft.currency, 'EUR');
    assert.deepEqual(
      draft.lines.map((line) => line.unitPrice),
      [
        { amount: 2000, currency: 'EUR' },
        { amount: 920, currency: 'EUR' },
      ],
    );
    assert.deepEqual(
      draft.promotions.map((promotion) => promotion.name),
      ['10 % off over 20'],
    );

    const headers = { authorization: `Bearer ${member.token}` };
    const storefront = t.storefront(shop);
    const cart = await ok<{ id: string }>(storefront.post('/carts', { items, country: 'DE' }, headers), 201);
    await ok(storefront.put(`/carts/${cart.id}/shipping-address`, BERLIN, headers));
    await ok(storefront.put(`/carts/${cart.id}/shipping-method`, { id: method }, headers));
    const placed = await ok<{ order: Order }>(
      storefront.post('/checkout', { cartId: cart.id }, { ...headers, 'idempotency-key': randomUUID() }),
      201,
    );
    const { order } = placed;
    for (const field of ['subtotal', 'discount', 'shipping', 'tax', 'total'] as const)
      assert.deepEqual(draft.totals[field], order[field], field);
    assert.deepEqual(
      draft.lines.map(({ unitPrice, discount, tax }) => ({ unitPrice, discount, tax })),
      order.lines.map(({ unitPrice, discount, tax }) => ({ unitPrice, discount, tax })),
    );
    // Completing the draft charges what it showed (the method's amount re-read under its lock).
    const completed = await ok<{ order: { total: Money; id: string } }>(
      admin.post(
        `/draft-orders/${draft.id}/complete`,
        { payment: 'manual' },
        { 'idempotency-key': randomUUID() },
      ),
    );
    assert.deepEqual(completed.order.total, draft.totals.total);
    const made = await ok<Order & { shippingMethod: { id: string } | null }>(
      admin.get(`/orders/${completed.order.id}`),
    );
    assert.deepEqual(made.shipping, draft.totals.shipping);
    assert.equal(made.shippingMethod?.id, method);
  });

  test('staff’s price, custom lines, custom shipping and a discount with its reason, shared like every discount', async () => {
    const { admin, shirt, member } = await store();
    const draft = await ok<Draft>(
      admin.post('/draft-orders', {
        customerId: member.id,
        lines: [
          { variantId: shirt, quantity: 1, unitPrice: 1500 },
          { title: 'Engraving', unitPrice: 1000, quantity: 1, taxClass: 'reduced', requiresShipping: false },
        ],
        shippingAddress: BERLIN,
        customShipping: { title: 'Courier', amount: 700 },
        discount: { kind: 'amount', value: 250, reason: 'Loyal customer' },
      }),
      201,
    );
    // 15.00 and 10.00: 25.00 takes the automatic 10 % (2.50), then staff's 2.50 on the 22.50 left.
    assert.deepEqual(draft.totals.subtotal, { amount: 2500, currency: 'EUR' });
    assert.deepEqual(draft.discount?.amount, { amount: 250, currency: 'EUR' });
    assert.equal(draft.discount?.reason, 'Loyal customer');
    assert.deepEqual(draft.totals.discount, { amount: 500, currency: 'EUR' });
    assert.deepEqual(draft.shipping, { id: null, name: 'Courier', amount: { amount: 700, currency: 'EUR' } });
    assert.deepEqual(draft.totals.shipping, { amount: 700, currency: 'EUR' });
    // Each line's share in proportion to what is left on it: 15:10 of 5.00 → 3.00 and 2.00.
    assert.deepEqual(
      draft.lines.map((line) => line.discount.amount),
      [300, 200],
    );
    assert.equal(draft.lines[1]!.custom, true);
    assert.deepEqual(draft.lines[1]!.tax, { amount: 52, rateBps: 700, class: 'reduced' });
    // Prices include tax: 12.00 at 19 % → 1.92; 8.00 at 7 % → 0.52; the courier follows no rule (shippingTax none).
    assert.deepEqual(draft.lines[0]!.tax, { amount: 192, rateBps: 1900, class: 'standard' });
    assert.deepEqual(draft.totals.tax, { amount: 244, currency: 'EUR' });
    assert.deepEqual(draft.totals.total, { amount: 2700, currency: 'EUR' });
    assert.equal(draft.totals.taxIncluded, true);

    const percent = await ok<Draft>(
      admin.patch(`/draft-orders/${draft.id}`, {
        discount: { kind: 'percent', value: 12.5, reason: 'Trade fair' },
      }),
    );
    // 12.5 % of the 22.50 left after the promotion: 2.81 (rounded down), shared 1.69 and 1.12.
    assert.deepEqual(percent.discount?.amount, { amount: 281, currency: 'EUR' });
    assert.deepEqual(
      percent.lines.map((line) => line.discount.amount),
      [150 + 169, 100 + 112],
    );
  });
});
