/**
 * Whether a cart or an order holds only gift cards (decision `shop-gift-cards`): its lines'
 * products read once each (`giftCard`), kept for the session like any read. Such an order ships
 * nothing, so checkout asks for no address, and a paid one says its codes come by email.
 */
import { shopApi } from './api.ts';
import { useResource } from './data.ts';
import { onlyGiftCards } from './gift-cards.ts';

/**
 * True when every line sells gift cards, false otherwise (and when a product cannot be read: it is
 * then treated as shipped), null until the products are read.
 */
export function useOnlyGiftCards(lines: readonly { productId: string }[] | null): boolean | null {
  const ids = [...new Set((lines ?? []).map((line) => line.productId))].sort();
  const key = ids.length > 0 ? `gift-card-products:${ids.join(',')}` : null;
  const read = useResource(key, async () => {
    const kinds = await Promise.all(
      ids.map((id) =>
        shopApi()
          .products.get(id)
          .then(
            (product) => (product.giftCard ? id : null),
            () => null,
          ),
      ),
    );
    return kinds.filter((id): id is string => id !== null);
  });
  if (key === null || lines === null) return false;
  if (read.data === undefined) return read.error ? false : null;
  return onlyGiftCards(lines, new Set(read.data));
}
