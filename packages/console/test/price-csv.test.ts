/**
 * A price list's prices pasted as CSV (src/screens/price-lists/csv.ts, decision `price-lists`):
 * each line resolved to its variant by SKU and its price read exactly in its currency's minor
 * units, a header allowed, tabs and semicolons as separators, and every wrong line kept with what
 * is wrong with it: an unknown SKU, a bad price or currency, a repeated variant and currency.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePriceLines, pricesAsCsv, type CatalogVariant } from '../src/screens/price-lists/csv.ts';

const variant = (id: string, sku: string): CatalogVariant => ({
  id,
  productId: `p-${id}`,
  productTitle: `Product ${id}`,
  label: 'One',
  sku,
  archived: false,
});
const SHIRT = variant('v1', 'SHIRT-1');
const SOCKS = variant('v2', 'SOCKS-1');
const bySku = new Map([
  [SHIRT.sku!, SHIRT],
  [SOCKS.sku!, SOCKS],
]);

const summary = (text: string, currency = 'USD') =>
  parsePriceLines(text, currency, bySku).map((line) => [
    line.line,
    line.variant?.id ?? null,
    line.currency,
    line.amount,
    line.problem,
  ]);

describe('prices pasted as CSV', () => {
  test('SKU and price, a header skipped, the default currency or the line’s own', () => {
    assert.deepEqual(summary('SKU,price,currency\nSHIRT-1,19.99\n\nSOCKS-1,4.5,eur\n'), [
      [2, 'v1', 'USD', 1999, null],
      [4, 'v2', 'EUR', 450, null],
    ]);
  });

  test('tabs and semicolons separate too, so a decimal comma reads; quotes are taken off', () => {
    assert.deepEqual(summary('SHIRT-1\t19,99\n"SOCKS-1";"1.234,50";JPY'), [
      [1, 'v1', 'USD', 1999, null],
      [2, 'v2', 'JPY', null, 'The price “1.234,50”: This currency has no decimals.'],
    ]);
    assert.deepEqual(summary('SOCKS-1;1234;JPY'), [[1, 'v2', 'JPY', 1234, null]]);
  });

  test('every wrong line says what is wrong; the first of a repeated variant and currency stands', () => {
    assert.deepEqual(
      summary(
        'SHIRT-1,19.99\nNOPE,5\nSOCKS-1,abc\nSOCKS-1,\nSHIRT-1,18\nSHIRT-1,18,EUR\n,5\nSOCKS-1,5,EURO\nSOCKS-1,5,EUR,x',
      ),
      [
        [1, 'v1', 'USD', 1999, null],
        [2, null, 'USD', 500, 'No variant has the SKU “NOPE”.'],
        [3, 'v2', 'USD', null, 'The price “abc”: Enter a number, like 19.99.'],
        [4, 'v2', 'USD', null, 'No price.'],
        [5, 'v1', 'USD', 1800, 'A second USD price for SHIRT-1: line 1 has one.'],
        [6, 'v1', 'EUR', 1800, null],
        [7, null, 'USD', 500, 'No SKU.'],
        [8, 'v2', 'EURO', null, '“EURO” is not a currency code, like EUR.'],
        [9, 'v2', 'EUR', 500, 'Too many columns: give SKU, price and currency.'],
      ],
    );
  });

  test('a SKU is matched exactly, case included (SKUs are unique as typed)', () => {
    assert.deepEqual(summary('shirt-1,1'), [[1, null, 'USD', 100, 'No variant has the SKU “shirt-1”.']]);
  });

  test('a list’s prices back as CSV, for the variants with a SKU', () => {
    const byId = new Map([[SHIRT.id, SHIRT]]);
    assert.equal(
      pricesAsCsv(
        [
          { variantId: 'v1', currency: 'EUR', amount: 1999 },
          { variantId: 'gone', currency: 'EUR', amount: 5 },
        ],
        byId,
      ),
      'SHIRT-1,19.99,EUR',
    );
  });
});
