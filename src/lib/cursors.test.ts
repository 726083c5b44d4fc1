import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { AppError } from './errors.ts';
import { CursorCodec, pageSize } from './cursors.ts';

const codec = new CursorCodec(randomBytes(32));

function assertInvalid(fn: () => unknown): void {
  assert.throws(
    fn,
    (error: unknown) =>
      error instanceof AppError && error.status === 400 && error.title === 'validation_failed',
  );
}

describe('cursors', () => {
  test('round-trip a position', () => {
    const cursor = codec.encode('store-1:products', ['2026-01-01T00:00:00.000Z', 'abc']);
    assert.match(cursor, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    assert.deepEqual(codec.decode('store-1:products', cursor), ['2026-01-01T00:00:00.000Z', 'abc']);
  });

  test('a modified cursor is 400', () => {
    const cursor = codec.encode('s:p', [5, 'id']);
    const [body, signature] = cursor.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify([6, 'id'])).toString('base64url');
    assertInvalid(() => codec.decode('s:p', `${forged}.${signature}`));
    // Change the first character: it carries six whole bits (the last one carries padding bits too).
    const tampered = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    assertInvalid(() => codec.decode('s:p', `${body}.${tampered}`));
    assertInvalid(() => codec.decode('s:p', body));
    assertInvalid(() => codec.decode('s:p', `${cursor}.x`));
    assertInvalid(() => codec.decode('s:p', 'garbage'));
  });

  test('a cursor of another store or list is 400', () => {
    const cursor = codec.encode('store-1:products', [1]);
    assertInvalid(() => codec.decode('store-2:products', cursor));
    assertInvalid(() => codec.decode('store-1:collections', cursor));
  });

  test('a cursor from another secret is 400', () => {
    const other = new CursorCodec(randomBytes(32));
    assertInvalid(() => codec.decode('s', other.encode('s', [1])));
  });

  test('page() builds the envelope from size + 1 rows', () => {
    const rows = [1, 2, 3, 4].map((n) => ({ n }));
    const page = codec.page(
      's',
      rows,
      3,
      (row) => [row.n],
      (row) => row.n,
    );
    assert.deepEqual(page.items, [1, 2, 3]);
    assert.deepEqual(codec.decode('s', page.nextCursor!), [3]);
    const last = codec.page(
      's',
      rows.slice(0, 2),
      3,
      (row) => [row.n],
      (row) => row.n,
    );
    assert.equal(last.nextCursor, null);
  });

  test('page size defaults to 20 and clamps at 100', () => {
    assert.equal(pageSize(undefined), 20);
    assert.equal(pageSize(5), 5);
    assert.equal(pageSize(1000), 100);
  });
});
