/**
 * The two twins of a market's conversion (decision `market-prices`): the database's
 * `storefront_market_price`, which prices catalog reads, and `convert`, which converts the store's
 * other amounts, give the same integer for every amount, rate, pair of currencies and rule; and the
 * rules give what docs/markets.md says they give.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { openTestDatabase, type TestDb } from '../test/harness.ts';
import { convert, isExchangeRate, type Conversion } from './conversion.ts';
import { currencyDigits } from './currencies.ts';

let db: TestDb;
before(async () => (db = await openTestDatabase()));
after(() => db.close());

async function inDatabase(amounts: readonly number[], c: Conversion): Promise<number[]> {
  const { rows } = await sql<{ price: number }>`
    SELECT storefront_market_price(a, ${c.rate}::numeric, ${c.digits}::int, ${c.baseDigits}::int, ${c.rounding}) AS price
    FROM unnest(${[...amounts]}::bigint[]) WITH ORDINALITY AS t(a, n) ORDER BY n`.execute(db.kysely);
  return rows.map((row) => Number(row.price));
}

const rate = fc
  .tuple(
    fc.integer({ min: 0, max: 99_999 }),
    fc.integer({ min: 0, max: 999_999 }),
    fc.integer({ min: 0, max: 6 }),
  )
  .map(([whole, fraction, places]) =>
    places === 0 ? String(whole) : `${whole}.${String(fraction).padStart(6, '0').slice(0, places)}`,
  )
  .filter(isExchangeRate);

describe('market conversion', () => {
  test('the rules on the documented examples', () => {
    const eur = (rounding: Conversion['rounding']): Conversion => ({
      rate: '0.92',
      digits: 2,
      baseDigits: 2,
      rounding,
    });
    assert.equal(convert(2400, eur('none')), 2208);
    assert.equal(convert(2400, eur('to_99')), 2299);
    assert.equal(convert(2400, eur('to_whole')), 2300);
    // Already on the rule's mark: kept (19.99 stays; 20.00 stays whole), but 20.00 → 20.99 by to_99.
    assert.equal(convert(1999, { ...eur('to_99'), rate: '1' }), 1999);
    assert.equal(convert(2000, { ...eur('to_whole'), rate: '1' }), 2000);
    assert.equal(convert(2000, { ...eur('to_99'), rate: '1' }), 2099);
    // Zero stays zero; half up to the minor unit.
    assert.equal(convert(0, eur('to_99')), 0);
    assert.equal(convert(5, { ...eur('none'), rate: '0.5' }), 3);
    // Minor units differ: USD cents → JPY (none) and KWD (three).
    assert.equal(convert(2400, { rate: '150', digits: 0, baseDigits: 2, rounding: 'none' }), 3600);
    assert.equal(convert(2400, { rate: '0.307', digits: 3, baseDigits: 2, rounding: 'none' }), 7368);
    assert.equal(convert(1234, { rate: '1', digits: 0, baseDigits: 0, rounding: 'to_99' }), 1234);
    assert.deepEqual([currencyDigits('JPY'), currencyDigits('KWD'), currencyDigits('EUR')], [0, 3, 2]);
    assert.equal(currencyDigits('XAU'), undefined);
  });

  test('the database and the service convert alike', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 10_000_000_000 }), { minLength: 1, maxLength: 20 }),
        rate,
        fc.constantFrom(0, 2, 3),
        fc.constantFrom(0, 2, 3),
        fc.constantFrom('none' as const, 'to_99' as const, 'to_whole' as const),
        async (amounts, r, digits, baseDigits, rounding) => {
          const conversion = { rate: r, digits, baseDigits, rounding };
          assert.deepEqual(
            await inDatabase(amounts, conversion),
            amounts.map((amount) => convert(amount, conversion)),
            JSON.stringify(conversion),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  test('rounding never lowers a price and lands on its mark', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), rate, (amount, r) => {
        const exact = { rate: r, digits: 2, baseDigits: 2 };
        const none = convert(amount, { ...exact, rounding: 'none' });
        const to99 = convert(amount, { ...exact, rounding: 'to_99' });
        const whole = convert(amount, { ...exact, rounding: 'to_whole' });
        assert.ok(to99 >= none - 0 || none === 0);
        assert.equal(to99 % 100, 99);
        assert.equal(whole % 100, 0);
        assert.ok(whole >= none - 1 && to99 >= none - 1);
      }),
    );
  });
});
