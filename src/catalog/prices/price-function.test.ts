/**
 * One price function (decision `price-function`): a member of a customer group and a guest each see
 * one price per variant on every path that shows or charges one (cards, details, handles, search
 * with its sorts and facets, collections, the cart, checkout and the order), the member's never
 * served to the guest from a cache; a sale shows the regular price as its compare-at.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  clientAddresses,
  createTestStore,
  startTestApp,
  waitForMail,
  type TestApp,
  type TestStore,
} from '../../test/harness.ts';
import { ok } from '../../test/answers.ts';
import { formatMoney } from '../../lib/money.ts';
import { signInCustomer } from '../../test/customers.ts';

let t: TestApp;
before(async () => (t = await startTestApp({ workers: true })));
after(() => t.close());

interface Money {
  amount: number;
  currency: string;
}
interface Card {
  id: string;
  title: string;
  priceAmount: number;
  compareAtAmount: number | null;
  currency: string;
}
interface Detail extends Card {
  variants: { id: string; priceAmount: number; compareAtAmount: number | null }[];
}

const client = clientAddresses();

/** Signs a new member in; the token and the customer's id. */
async function signIn(shop: TestStore): Promise<{ token: string; customerId: string }> {
  const session = await signInCustomer(t, shop, { ip: client() });
  return { token: session.token, customerId: session.customer.id };
}

/**
 * A USD store: a shirt (S 24.00, L 30.00) and a mug (10.00) in a collection; Europe (DE) in EUR at
 * 0.92; a Wholesale group whose override list prices the shirt's S at 18.00 and the mug at 7.00; a
 * sale for everyone in Europe pricing the mug at 8.00 EUR; one signed-in member.
 */
async function store() {
  const shop = await createTestStore(t, { currency: 'USD' });
  const admin = t.admin(shop);
  const product = (title: string, variants: object[], options?: object[]) =>
    ok<Detail>(
      admin.post('/products', { title, status: 'active', variants, ...(options ? { options } : {}) }),
      201,
    );
  const shirt = await product(
    'Shirt',
    [
      { options: { Size: 'S' }, priceAmount: 2400, onHand: 9 },
      { options: { Size: 'L' }, priceAmount: 3000, onHand: 9 },
    ],
    [{ name: 'Size', values: ['S', 'L'] }],
  );
  const mug = await product('Mug', [{ label: 'Mug', priceAmount: 1000, onHand: 9 }]);
  await ok(
    admin.post('/collections', { title: 'All', slug: 'all', kind: 'manual', productIds: [shirt.id, mug.id] }),
    201,
  );
  const europe = await ok<{ id: string }>(
    admin.post('/markets', { name: 'Europe', countries: ['DE'], currency: 'EUR', exchangeRate: '0.92' }),
    201,
  );
  const group = await ok<{ id: string }>(admin.post('/customer-groups', { name: 'Wholesale' }), 201);
  await ok(
    admin.post('/price-lists', {
      name: 'Wholesale',
      kind: 'override',
      customerGroupIds: [group.id],
      prices: [
        { variantId: shirt.variants[0]!.id, currency: 'USD', amount: 1800 },
        { variantId: mug.variants[0]!.id, currency: 'USD', amount: 700 },
      ],
    }),
    201,
  );
  await ok(
    admin.post('/price-lists', {
      name: 'Summer',
      kind: 'sale',
      marketIds: [europe.id],
      prices: [{ variantId: mug.variants[0]!.id, currency: 'EUR', amount: 800 }],
    }),
    201,
  );
  const zone = await ok<{ id: string }>(
    admin.post('/shipping/zones', { name: 'Everywhere', areas: [{ country: '*' }] }),
    201,
  );
  await ok(
    admin.post(`/shipping/zones/${zone.id}/methods`, {
      name: 'Standard',
      kind: 'free_over',
      amount: 500,
      freeOverAmount: 3000,
    }),
    201,
  );
  const member = await signIn(shop);
  await ok(admin.put(`/customers/${member.customerId}/groups`, { groupIds: [group.id] }));
  return { shop, shirt, mug, member, group };
}

const BOSTON = {
  name: 'Ada Lovelace',
  line1: '1 Main St',
  city: 'Boston',
  region: 'US-MA',
  postalCode: '02110',
  country: 'US',
};
const BERLIN = {
  name: 'Ada Lovelace',
  line1: 'Unter den Linden 1',
  city: 'Berlin',
  postalCode: '10117',
  country: 'DE',
};

interface ShippingOptionAmount {
  amount: Money;
}

/** Every path's price of the shirt's S and of the mug, as `who` sees them (with `country`). */
async function pricesOnEveryPath(
  shop: TestStore,
  shirt: Detail,
  mug: Detail,
  token: string | null,
  country = '',
) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const storefront = t.storefront(shop);
  const q = (more = '') => `?${[country ? `country=${country}` : '', more].filter(Boolean).join('&')}`;
  const get = <T>(url: string) => ok<T>(storefront.get(url, headers));
  const byTitle = (cards: Card[]) => Object.fromEntries(cards.map((c) => [c.title, c.priceAmount]));
  const cards = byTitle((await get<{ items: Card[] }>(`/products${q()}`)).items);
  const searched = await get<{ items: Card[] }>(`/products${q('sort=price_asc')}`);
  const found = byTitle((await get<{ items: Card[] }>(`/products${q('q=shirt')}`)).items);
  const facets = await get<{ price: { min: number; max: number } }>(`/products/facets${q()}`);
  const collection = byTitle((await get<{ items: Card[] }>(`/collections/all/products${q()}`)).items);
  const shirtDetail = await get<Detail>(`/products/${shirt.id}${q()}`);
  const mugByHandle = await get<Detail>(`/products/handle/mug${q()}`);
  const cart = await ok<{ id: string; items: { unitPrice: Money }[] }>(
    storefront.post(
      '/carts',
      {
        items: [
          { variantId: shirt.variants[0]!.id, quantity: 1 },
          { variantId: mug.variants[0]!.id, quantity: 1 },
        ],
        ...(country ? { country } : {}),
      },
      headers,
    ),
    201,
  );
  // Shipping options: free from 30.00 of goods (the store's), so a member's prices may miss it.
  await ok(storefront.put(`/carts/${cart.id}/shipping-address`, country === 'DE' ? BERLIN : BOSTON, headers));
  const options = (await get<{ items: ShippingOptionAmount[] }>(`/carts/${cart.id}/shipping-options`)).items;
  const email = `buyer-${randomUUID().slice(0, 8)}@example.com`;
  const placed = await ok<{
    order: { id: string; lines: { unitPrice: Money }[] };
    payment: { ref: string; clientSecret: string };
  }>(
    storefront.post('/checkout', { cartId: cart.id, email }, { ...headers, 'idempotency-key': randomUUID() }),
    201,
  );
  // The order confirmation mail, sent once the payment is confirmed, shows the prices charged.
  const confirmed = await t.app.inject({
    method: 'POST',
    url: `/sandbox/v1/payments/${placed.payment.ref}/confirm`,
    payload: { clientSecret: placed.payment.clientSecret, paymentMethod: 'pm_card_visa' },
  });
  assert.equal(confirmed.statusCode, 200, confirmed.body);
  const mail = (await waitForMail(t, email)).text ?? '';
  const inMail = (money: Money) => (mail.includes(formatMoney(money)) ? money.amount : -1);
  return {
    shirt: [
      cards.Shirt,
      found.Shirt,
      collection.Shirt,
      shirtDetail.priceAmount,
      shirtDetail.variants[0]!.priceAmount,
      cart.items[0]!.unitPrice.amount,
      placed.order.lines[0]!.unitPrice.amount,
      inMail(placed.order.lines[0]!.unitPrice),
    ],
    mug: [
      cards.Mug,
      collection.Mug,
      mugByHandle.priceAmount,
      mugByHandle.variants[0]!.priceAmount,
      cart.items[1]!.unitPrice.amount,
      placed.order.lines[1]!.unitPrice.amount,
      inMail(placed.order.lines[1]!.unitPrice),
    ],
    shipping: options.map((option) => option.amount.amount),
    order: searched.items.map((c) => c.title),
    facetMin: facets.price.min,
    shirtCompareAt: shirtDetail.variants[0]!.compareAtAmount,
    mugCompareAt: mugByHandle.variants[0]!.compareAtAmount,
  };
}

const all = (value: number, n: number) => Array.from({ length: n }, () => value);

describe('the price function', () => {
  test('a member and a guest each see one price on every path', async () => {
    const { shop, shirt, mug, member } = await store();
    const guest = await pricesOnEveryPath(shop, shirt, mug, null);
    const wholesale = await pricesOnEveryPath(shop, shirt, mug, member.token);
    assert.deepEqual(guest.shirt, all(2400, 8));
    assert.deepEqual(guest.mug, all(1000, 7));
    assert.deepEqual([guest.order, guest.facetMin], [['Mug', 'Shirt'], 1000]);
    // Free shipping from 30.00: the guest's 34.00 of goods reach it, the member's 25.00 do not.
    assert.deepEqual([guest.shipping, wholesale.shipping], [[0], [500]]);
    assert.deepEqual(wholesale.shirt, all(1800, 8));
    assert.deepEqual(wholesale.mug, all(700, 7));
    // An override replaces the price: no compare-at.
    assert.deepEqual(
      [wholesale.order, wholesale.facetMin, wholesale.shirtCompareAt],
      [['Mug', 'Shirt'], 700, null],
    );
    // The member's answers never reached the guest through the cache.
    assert.deepEqual((await pricesOnEveryPath(shop, shirt, mug, null)).shirt, all(2400, 8));
  });

  test('a sale in a market shows the regular price as its compare-at, for members too', async () => {
    const { shop, shirt, mug, member } = await store();
    const guest = await pricesOnEveryPath(shop, shirt, mug, null, 'DE');
    // 10.00 USD at 0.92 is 9.20 EUR regularly; the sale makes it 8.00.
    assert.deepEqual(guest.mug, all(800, 7));
    assert.equal(guest.mugCompareAt, 920);
    assert.deepEqual(guest.shirt, all(2208, 8));
    // The Wholesale override is in USD only: in EUR the member pays what everyone pays.
    const wholesale = await pricesOnEveryPath(shop, shirt, mug, member.token, 'DE');
    assert.deepEqual([wholesale.mug, wholesale.shirt], [all(800, 7), all(2208, 8)]);
  });

  test('a member’s read is private; a guest’s stays in the shared cache', async () => {
    const { shop, member } = await store();
    const storefront = t.storefront(shop);
    const mine = await storefront.get('/products', { authorization: `Bearer ${member.token}` });
    assert.equal(mine.headers['cache-control'], 'private, no-store');
    const theirs = await storefront.get('/products');
    assert.equal(theirs.statusCode, 200);
    // Priced at request time, a search still pages: its cursor names its market and groups, not its moment.
    const first = await ok<{ items: Card[]; nextCursor: string }>(
      storefront.get('/products?sort=price_asc&limit=1'),
    );
    const next = await ok<{ items: Card[] }>(
      storefront.get(`/products?sort=price_asc&limit=1&cursor=${encodeURIComponent(first.nextCursor)}`),
    );
    assert.deepEqual([first.items[0]!.title, next.items[0]!.title], ['Mug', 'Shirt']);
  });

  test('a guest’s read is kept until a list starts, then priced again: no cache serves it after', async () => {
    const { shop, mug } = await store();
    const storefront = t.storefront(shop);
    const startsAt = new Date(Date.now() + 2500);
    await ok(
      t.admin(shop).post('/price-lists', {
        name: 'Flash',
        kind: 'sale',
        startsAt: startsAt.toISOString(),
        prices: [{ variantId: mug.variants[0]!.id, currency: 'USD', amount: 500 }],
      }),
      201,
    );
    const url = `/products/${mug.id}`;
    const before = await storefront.get(url);
    assert.equal((JSON.parse(before.body) as Card).priceAmount, 1000);
    // Shared, but no cache may keep it past the list's start (about 2 s away).
    const control = String(before.headers['cache-control']);
    assert.match(control, /^public, max-age=[0-2]$/);
    // The store's first read sets the cache's baseline; the next is kept, the one after served from it.
    await t.app.readCache!.recheck();
    assert.equal((await storefront.get(url)).body, before.body);
    const hits = t.app.readCache!.stats().hits;
    assert.equal((await storefront.get(url)).body, before.body);
    assert.equal(t.app.readCache!.stats().hits, hits + 1, 'served from the read cache until then');
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, startsAt.getTime() - Date.now()) + 50));
    const after = await ok<Card>(storefront.get(url));
    assert.deepEqual([after.priceAmount, after.compareAtAmount], [500, 1000]);
    // With no later start or end, a guest's read is the catalog's as ever.
    assert.equal(
      (await storefront.get(url)).headers['cache-control'],
      'public, max-age=30, stale-while-revalidate=300',
    );
  });

  test('why this price: the explanation names the rule, and its price is the one every path shows', async () => {
    const { shop, shirt, mug, group } = await store();
    const admin = t.admin(shop);
    interface Explanation {
      price: Money;
      compareAtAmount: number | null;
      source: string;
      priceList: { name: string; kind: string } | null;
      marketPrice: { amount: number; from: string };
      candidates: { name: string; wins: boolean }[];
      reason: string;
    }
    const member = await ok<Explanation>(
      admin.get(`/variants/${shirt.variants[0]!.id}/price?customerGroupId=${group.id}`),
    );
    assert.deepEqual(
      [member.price, member.source, member.priceList?.name, member.marketPrice, member.compareAtAmount],
      [
        { amount: 1800, currency: 'USD' },
        'override',
        'Wholesale',
        { amount: 2400, currency: 'USD', from: 'store_price' },
        null,
      ],
    );
    const guest = await ok<Explanation>(admin.get(`/variants/${shirt.variants[0]!.id}/price`));
    assert.deepEqual([guest.price.amount, guest.source, guest.candidates], [2400, 'market', []]);
    const sale = await ok<Explanation>(admin.get(`/variants/${mug.variants[0]!.id}/price?country=DE`));
    assert.deepEqual(
      [
        sale.price,
        sale.compareAtAmount,
        sale.source,
        sale.marketPrice.from,
        sale.candidates.map((c) => [c.name, c.wins]),
      ],
      [{ amount: 800, currency: 'EUR' }, 920, 'sale', 'converted', [['Summer', true]]],
    );
    assert.match(sale.reason, /lowest sale/);
    // Before the lists' time nothing applied? They have no dates: at any time the same.
    const unknown = await admin.get(`/variants/${randomUUID()}/price`);
    assert.equal(unknown.statusCode, 404, unknown.body);
  });
});
