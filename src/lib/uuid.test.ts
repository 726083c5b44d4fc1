import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuidV7 } from './uuid.ts';

test('uuidV7: version 7, RFC variant, the time in the first 48 bits, and time order is sort order', () => {
  const ms = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
  const id = uuidV7(ms);
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(parseInt(id.replaceAll('-', '').slice(0, 12), 16), ms);
  const ids = Array.from({ length: 1000 }, (_, i) => uuidV7(ms + i * 7));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(
    new Set(Array.from({ length: 1000 }, () => uuidV7(ms))).size,
    1000,
    'random within a millisecond',
  );
  assert.throws(() => uuidV7(-1), RangeError);
  assert.throws(() => uuidV7(2 ** 48), RangeError);
});
