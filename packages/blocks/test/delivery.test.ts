import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deliveryEstimate } from '@storefront/blocks';

test('a delivery estimate reads the same wherever it shows', () => {
  const cases: [number | null, number | null, string | null][] = [
    [3, 5, '3–5 business days'],
    [1, 2, '1–2 business days'],
    [2, 2, '2 business days'],
    [1, 1, '1 business day'],
    [0, 0, 'Same day'],
    [0, 1, '0–1 business days'],
    [null, 5, 'Up to 5 business days'],
    [null, 1, 'Up to 1 business day'],
    [null, 0, 'Same day'],
    [3, null, '3 business days or more'],
    [null, null, null],
  ];
  for (const [minDeliveryDays, maxDeliveryDays, words] of cases)
    assert.equal(
      deliveryEstimate({ minDeliveryDays, maxDeliveryDays }),
      words,
      `${minDeliveryDays}–${maxDeliveryDays}`,
    );
});
