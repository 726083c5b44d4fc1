import { hmacSha256, safeEqual } from './crypto.ts';
import { validationFailed } from './errors.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** The `limit` query value after defaulting and clamping (schema has already rejected < 1). */
export function pageSize(limit: number | undefined): number {
  return Math.min(limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
}

export interface ListPage<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * Opaque, tamper-evident keyset cursors: base64url(JSON of the last row's sort key) + "." + a
 * truncated HMAC over it and its scope (store and list), so a cursor cannot be edited or reused
 * against another store or list.
 */
export class CursorCodec {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    this.#key = key;
  }

  #sign(scope: string, body: string): string {
    return hmacSha256(this.#key, `${scope}\n${body}`).subarray(0, 16).toString('base64url');
  }

  encode(scope: string, position: readonly (string | number)[]): string {
    const body = Buffer.from(JSON.stringify(position)).toString('base64url');
    return `${body}.${this.#sign(scope, body)}`;
  }

  /** Returns the position, or throws 400 validation_failed for anything not made by encode(). */
  decode(scope: string, cursor: string): (string | number)[] {
    const [body, signature, extra] = cursor.split('.');
    const invalid = validationFailed('The cursor is invalid; pass back nextCursor exactly as received.', [
      { pointer: '/cursor', detail: 'is not a valid cursor', in: 'query' },
    ]);
    if (!body || !signature || extra !== undefined || !safeEqual(signature, this.#sign(scope, body)))
      throw invalid;
    try {
      const value: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) {
        return value;
      }
    } catch {
      // fall through
    }
    throw invalid;
  }

  /**
   * Builds the envelope from a query that fetched `size + 1` rows: the extra row only proves there
   * is a next page; the cursor points at the last row returned.
   */
  page<Row, Item>(
    scope: string,
    rows: Row[],
    size: number,
    position: (row: Row) => (string | number)[],
    toItem: (row: Row) => Item,
  ): ListPage<Item> {
    const pageRows = rows.slice(0, size);
    const last = pageRows.at(-1);
    return {
      items: pageRows.map(toItem),
      nextCursor: rows.length > size && last !== undefined ? this.encode(scope, position(last)) : null,
    };
  }
}
