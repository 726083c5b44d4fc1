/**
 * A shipping method's tax class (decisions `tax-classes` and `shipping-tax`): null by default (its
 * shipping follows the goods), set and cleared on create and change, shown in the method and zone
 * views; a class the store does not have (another store's included) is 400 at `/taxClass` with
 * nothing written; a class a method names cannot be deleted until the method moves off it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestStore, startTestAppWithStore, type TestApp, type TestStore } from '../test/harness.ts';

let t: TestApp;
let shop: TestStore;
let zoneId: string;

before(async () => {
  ({ t, shop } = await startTestAppWithStore());
  const response = await t.admin(shop).post('/tax-classes', { code: 'reduced', name: 'Reduced' });
  assert.equal(response.statusCode, 201, response.body);
  zoneId = await zone(shop);
});
after(() => t.close());

interface Method {
  id: string;
  name: string;
  amount: number | null;
  taxClass: string | null;
  updatedAt: string;
}

async function zone(store: TestStore): Promise<string> {
  const response = await t.admin(store).post('/shipping/zones', { name: 'DE', areas: [{ country: 'DE' }] });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string }>().id;
}

const methods = (id = zoneId) => `/shipping/zones/${id}/methods`;

async function methodsOfZone(): Promise<Method[]> {
  const response = await t.admin(shop).get(`/shipping/zones/${zoneId}`);
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ methods: Method[] }>().methods;
}

function assertUnknownClass(response: { statusCode: number; body: string }): void {
  assert.equal(response.statusCode, 400, response.body);
  const problem = JSON.parse(response.body) as { title: string; errors: { pointer: string }[] };
  assert.equal(problem.title, 'validation_failed');
  // The schema says why a value is not a class code once per branch of string | null.
  assert.deepEqual([...new Set(problem.errors.map((error) => error.pointer))], ['/taxClass']);
}

describe('taxClass on shipping methods', () => {
  test('null by default; set, kept by a change without it, cleared; the zone shows it', async () => {
    const plain = await t.admin(shop).post(methods(), { name: 'Parcel', kind: 'flat', amount: 500 });
    assert.equal(plain.statusCode, 201, plain.body);
    assert.equal(plain.json<Method>().taxClass, null);

    const classed = await t
      .admin(shop)
      .post(methods(), { name: 'Letter', kind: 'flat', amount: 200, taxClass: 'reduced' });
    assert.equal(classed.statusCode, 201, classed.body);
    const letter = classed.json<Method>();
    assert.equal(letter.taxClass, 'reduced');

    const standard = await t
      .admin(shop)
      .patch(`${methods()}/${plain.json<Method>().id}`, { taxClass: 'standard' });
    assert.equal(standard.statusCode, 200, standard.body);
    assert.equal(standard.json<Method>().taxClass, 'standard');
    const renamed = await t.admin(shop).patch(`${methods()}/${letter.id}`, { name: 'Small letter' });
    assert.equal(renamed.json<Method>().taxClass, 'reduced', 'a change without taxClass keeps it');
    const cleared = await t.admin(shop).patch(`${methods()}/${letter.id}`, { taxClass: null });
    assert.equal(cleared.json<Method>().taxClass, null);

    assert.deepEqual(
      (await methodsOfZone())
        .filter((method) => [plain.json<Method>().id, letter.id].includes(method.id))
        .map((method) => [method.name, method.taxClass]),
      [
        ['Parcel', 'standard'],
        ['Small letter', null],
      ],
    );
  });

  test('an unknown class, or another store’s, is 400 at /taxClass; nothing is written', async () => {
    const other = await createTestStore(t);
    await t.admin(other).post('/tax-classes', { code: 'books', name: 'Books' });
    const before = await methodsOfZone();
    assertUnknownClass(
      await t.admin(shop).post(methods(), { name: 'Bogus', kind: 'flat', amount: 1, taxClass: 'books' }),
    );
    assertUnknownClass(
      await t.admin(shop).post(methods(), { name: 'Bogus', kind: 'flat', amount: 1, taxClass: 'No Class' }),
    );
    const method = await t.admin(shop).post(methods(), { name: 'Courier', kind: 'flat', amount: 900 });
    const id = method.json<Method>().id;
    assertUnknownClass(await t.admin(shop).patch(`${methods()}/${id}`, { amount: 1, taxClass: 'books' }));
    const after = await methodsOfZone();
    assert.deepEqual(after, [...before, method.json<Method>()], 'only the courier was made, unchanged');
  });

  test('a class a method names cannot be deleted until the method moves off it', async () => {
    const store = await createTestStore(t);
    await t.admin(store).post('/tax-classes', { code: 'books', name: 'Books' });
    const created = await t
      .admin(store)
      .post(methods(await zone(store)), { name: 'Post', kind: 'flat', amount: 300, taxClass: 'books' });
    assert.equal(created.statusCode, 201, created.body);
    const refused = await t.admin(store).delete('/tax-classes/books');
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json<{ title: string }>().title, 'tax_class_in_use');
    const { id, zoneId: home } = created.json<Method & { zoneId: string }>();
    const moved = await t.admin(store).patch(`${methods(home)}/${id}`, { taxClass: null });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal((await t.admin(store).delete('/tax-classes/books')).statusCode, 204);
  });
});
