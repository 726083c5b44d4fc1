import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setImmediate as settled } from 'node:timers/promises';
import { ReservationsInFlight } from './reservations-in-flight.ts';

const STORE = '00000000-0000-4000-8000-000000000001';
const line = (variantId: string, quantity: number, available: number) => ({ variantId, quantity, available });

describe('reservations in flight (decision `reservations-in-flight`)', () => {
  test('no wait while the units fit beside what is held; a wait once they do not', () => {
    const gate = new ReservationsInFlight();
    assert.equal(gate.waitIfShort(STORE, [line('a', 1, 1)], 1000), null, 'nothing held');
    const release = gate.hold(STORE, [line('a', 2, 5)]);
    assert.equal(gate.waitIfShort(STORE, [line('a', 3, 5)], 1000), null, '5 − 2 ≥ 3');
    const wait = gate.waitIfShort(STORE, [line('a', 4, 5)], 1000);
    assert.ok(wait instanceof Promise, '5 − 2 < 4');
    assert.equal(gate.waitIfShort(STORE, [line('b', 4, 5)], 1000), null, 'another variant');
    assert.equal(
      gate.waitIfShort('00000000-0000-4000-8000-000000000002', [line('a', 4, 5)], 1000),
      null,
      'another store',
    );
    release();
    assert.equal(gate.size, 0);
  });

  test('the wait ends when every holder of the variant has released, not before', async () => {
    const gate = new ReservationsInFlight();
    const first = gate.hold(STORE, [line('a', 1, 2)]);
    const second = gate.hold(STORE, [line('a', 1, 2)]);
    let done = false;
    const wait = gate.waitIfShort(STORE, [line('a', 1, 2)], 60_000)!.then(() => (done = true));
    first();
    first(); // a second release of the same hold changes nothing
    await settled(); // a wait ended by a release settles in microtasks, before this
    assert.equal(done, false, 'one unit is still held');
    second();
    await wait;
    assert.equal(done, true);
    assert.equal(gate.size, 0);
  });

  test('a committed reservation that left nothing ends the waits for its variant at once', async () => {
    const gate = new ReservationsInFlight();
    const winner = gate.hold(STORE, [line('a', 1, 2)]);
    const loser = gate.hold(STORE, [line('a', 1, 2)]);
    let done = false;
    const wait = gate.waitIfShort(STORE, [line('a', 1, 2)], 60_000)!.then(() => (done = true));
    winner(new Map([['a', 1]]));
    await settled();
    assert.equal(done, false, 'one unit left: keep waiting');
    const other = gate.hold(STORE, [line('a', 1, 2)]);
    other(new Map([['a', 0]]));
    await wait;
    assert.equal(done, true, 'sold out: the waiter checks again while the loser still holds');
    loser();
    assert.equal(gate.size, 0);
  });

  test('a wait ends at its bound even while the units are still held', async () => {
    const gate = new ReservationsInFlight();
    const release = gate.hold(STORE, [line('a', 1, 1)]);
    await gate.waitIfShort(STORE, [line('a', 1, 1)], 20);
    assert.equal(gate.size, 1, 'still held: the bound ended the wait');
    release();
  });
});
