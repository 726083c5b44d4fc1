/**
 * The shopper's cart, shared by every page: its id in localStorage (so it survives a reload and is
 * the same in every tab), the last copy read and its ETag. Every change is a full replace of the
 * lines (the API's PUT) sent with `If-Match`: when another tab changed the cart meanwhile the API
 * answers 412, and the cart is read again instead of overwriting what the other tab did.
 * Changes run one after another, so this tab never races itself. A new cart is priced in the
 * shopper's market (its country, market.ts), and a change of country moves the cart there.
 */
import type { AddressInput, Cart, CartInput, ShippingOption } from '@storefront/client';
import { useEffect, useState } from 'preact/hooks';
import { isStatus, shopApi } from './api.ts';
import { COUNTRY_KEY, inCountry, marketStore } from './market.ts';

const STORAGE_KEY = 'storefront.cart';

/**
 * Adding would put more units of a variant in the cart than the shop has (by the product's
 * `available`, display data read with the page): nothing was written.
 */
export class NotEnoughStockError extends Error {
  override readonly name = 'NotEnoughStockError';
  constructor(available: number, inCart: number) {
    super(
      available === 0
        ? 'This option is sold out.'
        : `Only ${available} left${inCart > 0 ? `; you have ${inCart} in your cart` : ''}.`,
    );
  }
}

/** The cart changed elsewhere (another tab, another device): it was read again; nothing was written. */
export class CartChangedError extends Error {
  override readonly name = 'CartChangedError';
  constructor() {
    super('This cart was changed in another tab or window. It now shows what it holds.');
  }
}

export type Items = CartInput['items'];

/** The lines as a cart or an order holds them, as the API takes them. */
export function itemsOf(holder: { items: Cart['items'] } | { lines: Cart['items'] } | null): Items {
  const lines = holder === null ? [] : 'items' in holder ? holder.items : holder.lines;
  return lines.map((line) => ({ variantId: line.variantId, quantity: line.quantity }));
}

/** Whether two sets of lines hold the same quantity of the same variants (in any order). */
export function sameItems(a: Items, b: Items): boolean {
  const key = (items: Items) =>
    items
      .map((item) => `${item.variantId.toLowerCase()}:${item.quantity}`)
      .sort()
      .join(',');
  return key(a) === key(b);
}

function storedId(): string | null {
  try {
    return window.localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

function storeId(id: string | null): void {
  try {
    if (id) window.localStorage.setItem(STORAGE_KEY, id);
    else window.localStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage refused (private mode): the cart lives as long as the page.
  }
}

export interface CartState {
  cart: Cart | null;
  /** True until the stored cart was read once. */
  loading: boolean;
}

class CartStore {
  #state: CartState = { cart: null, loading: true };
  #etag: string | null = null;
  #id: string | null = storedId();
  #queue: Promise<unknown> = Promise.resolve();
  readonly #listeners = new Set<(state: CartState) => void>();

  constructor() {
    window.addEventListener('storage', (event) => {
      // Another tab made a new cart or checked this one out.
      if (event.key === STORAGE_KEY && event.newValue !== this.#id) {
        this.#id = event.newValue;
        void this.load().catch(() => undefined);
      }
      // Another tab chose another country: it moved the cart to that market.
      if (event.key === COUNTRY_KEY) void this.load().catch(() => undefined);
    });
  }

  get state(): CartState {
    return this.#state;
  }

  subscribe(listener: (state: CartState) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  #set(cart: Cart | null, etag: string | null): Cart | null {
    this.#etag = etag;
    if ((cart?.id ?? null) !== this.#id) {
      this.#id = cart?.id ?? null;
      storeId(this.#id);
    }
    this.#state = { cart, loading: false };
    this.#listeners.forEach((listener) => listener(this.#state));
    return cart;
  }

  /** One change at a time, in order; a failed one does not stop the next. */
  #run<T>(task: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(task, task);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #read(): Promise<Cart | null> {
    const id = this.#id;
    if (!id) return this.#set(null, null);
    let etag: string | null = null;
    try {
      const cart = await shopApi().carts.get(id, { onResponse: (r) => (etag = r.headers.get('etag')) });
      // A cart checked out (here or in another tab) is finished: the next item starts a new one.
      return cart.completed ? this.#set(null, null) : this.#set(cart, etag);
    } catch (error) {
      if (isStatus(error, 404)) return this.#set(null, null);
      this.#state = { ...this.#state, loading: false };
      throw error;
    }
  }

  async #create(items: Items): Promise<Cart | null> {
    let etag: string | null = null;
    const created = await shopApi().carts.create(
      { items, ...inCountry(marketStore.state.country) },
      { onResponse: (r) => (etag = r.headers.get('etag')) },
    );
    return this.#set(created, etag);
  }

  async #replace(cart: Cart, items: Items): Promise<Cart | null> {
    let etag: string | null = null;
    const next = await shopApi().carts.replace(
      cart.id,
      { items },
      { ...(this.#etag ? { ifMatch: this.#etag } : {}), onResponse: (r) => (etag = r.headers.get('etag')) },
    );
    return this.#set(next, etag);
  }

  /** Reads the cart again (on start, and when another tab changed which cart is current). */
  load(): Promise<Cart | null> {
    return this.#run(() => this.#read());
  }

  /**
   * Adds units of a variant, at most `available` in all (NotEnoughStockError otherwise: the cart
   * already holds what is left). Adding is the same wish whatever the cart holds, so when another
   * tab changed it meanwhile (412) the cart is read again and the units added to what it holds now.
   */
  add(variantId: string, quantity: number, available = Infinity): Promise<Cart | null> {
    return this.#run(async () => {
      for (let attempt = 0; ; attempt++) {
        const cart = this.#state.cart;
        const items = itemsOf(cart);
        const line = items.find((item) => item.variantId === variantId);
        const inCart = line?.quantity ?? 0;
        if (inCart + quantity > available) throw new NotEnoughStockError(available, inCart);
        if (!cart) return this.#create([{ variantId, quantity }]);
        if (line) line.quantity = Math.min(999, line.quantity + quantity);
        else items.push({ variantId, quantity });
        try {
          return await this.#replace(cart, items);
        } catch (error) {
          const stale = isStatus(error, 412) || isStatus(error, 409) || isStatus(error, 404);
          if (!stale || attempt >= 2) throw error;
          await this.#read();
        }
      }
    });
  }

  /**
   * Sets a line's quantity (0 removes it). A quantity is a decision made looking at this cart: when
   * another tab changed it (412), nothing is written, the cart is read again, and CartChangedError
   * tells the shopper to look again.
   */
  setQuantity(variantId: string, quantity: number): Promise<Cart | null> {
    return this.#run(async () => {
      const cart = this.#state.cart;
      if (!cart) return null;
      const items = itemsOf(cart)
        .map((item) => (item.variantId === variantId ? { ...item, quantity } : item))
        .filter((item) => item.quantity > 0);
      try {
        return await this.#replace(cart, items);
      } catch (error) {
        if (isStatus(error, 412) || isStatus(error, 409)) {
          await this.#read();
          throw new CartChangedError();
        }
        throw error;
      }
    });
  }

  /**
   * Prices the cart in the market of `country` (null: the default market), as the shopper chose in
   * the selector; the answer's `market_changed` notice says when that moved it. The same wish
   * whatever the cart holds, so when another tab changed it (412) the cart is read again and the
   * country sent again. A cart with a shipping address stays in the address's market (the API's rule).
   */
  setCountry(country: string | null): Promise<Cart | null> {
    return this.#run(async () => {
      for (let attempt = 0; ; attempt++) {
        const cart = this.#state.cart;
        if (!cart || (cart.country ?? null) === country) return cart;
        let etag: string | null = null;
        try {
          const next = await shopApi().request('setCartCountry', {
            path: { id: cart.id },
            body: { country },
            ...(this.#etag ? { header: { 'If-Match': this.#etag } } : {}),
            onResponse: (r) => (etag = r.headers.get('etag')),
          });
          return this.#set(next, etag);
        } catch (error) {
          const stale = isStatus(error, 412) || isStatus(error, 409) || isStatus(error, 404);
          if (!stale || attempt >= 2) throw error;
          await this.#read();
        }
      }
    });
  }

  /**
   * Puts an unpaid order's lines back in the cart, as a shopper who leaves the payment page expects
   * (a new cart: the old one became the order). A cart that holds items is left as it is: it was
   * filled since, or restored already.
   */
  restore(items: Items): Promise<Cart | null> {
    return this.#run(async () => {
      const current = await this.#read().catch(() => this.#state.cart);
      if (current && current.items.length > 0) return current;
      return this.#create(items);
    });
  }

  /**
   * One write of a sub-resource of the cart (its address, method, code or gift card) under `If-Match`. When
   * another tab changed the cart (412), nothing is written, the cart is read again, and
   * CartChangedError says so; a refusal of the write itself (400, 409) is the caller's to show.
   */
  #writeOne(
    send: (
      id: string,
      options: { ifMatch?: string; onResponse: (response: Response) => void },
    ) => Promise<Cart>,
  ): Promise<Cart> {
    return this.#run(async () => {
      const cart = this.#state.cart;
      if (!cart) throw new CartChangedError();
      let etag: string | null = null;
      try {
        const next = await send(cart.id, {
          ...(this.#etag ? { ifMatch: this.#etag } : {}),
          onResponse: (r) => (etag = r.headers.get('etag')),
        });
        return this.#set(next, etag)!;
      } catch (error) {
        if (isStatus(error, 412) || (isStatus(error, 409) && error.title === 'cart_completed')) {
          await this.#read();
          throw new CartChangedError();
        }
        throw error;
      }
    });
  }

  /** Where the parcel goes (checked by the service: a bad field is a 400 with its pointer). */
  setShippingAddress(address: AddressInput): Promise<Cart> {
    return this.#writeOne((id, options) => shopApi().carts.setShippingAddress(id, address, options));
  }

  /** The shipping method: one of the cart's options. */
  setShippingMethod(methodId: string): Promise<Cart> {
    return this.#writeOne((id, options) => shopApi().carts.setShippingMethod(id, methodId, options));
  }

  /**
   * Adds a discount code to the cart's codes (decision `cart-promotions`): 409 `discount_invalid`
   * when it cannot be used now, 409 `too_many_discount_codes` past five. A code that takes nothing
   * off now stays, with a notice saying why.
   */
  addDiscountCode(code: string): Promise<Cart> {
    return this.#writeOne((id, options) => shopApi().carts.addDiscountCode(id, code, options));
  }

  /** Removes one of the cart's discount codes. */
  removeDiscountCode(code: string): Promise<Cart> {
    return this.#writeOne((id, options) => shopApi().carts.removeOneDiscountCode(id, code, options));
  }

  /**
   * Adds a gift card by its code (decision `gift-card-tender`): 409 `gift_card_invalid` when no card
   * has it or it cannot pay, 409 `too_many_gift_cards` past five, 429 `rate_limited` past the
   * client's guesses. The cart shows the card by its last 4 characters, with what it pays.
   */
  addGiftCard(code: string): Promise<Cart> {
    return this.#writeOne((id, options) => shopApi().carts.addGiftCard(id, code, options));
  }

  /** Removes the cart's gift card whose code ends in `last4`. */
  removeGiftCard(last4: string): Promise<Cart> {
    return this.#writeOne((id, options) => shopApi().carts.removeGiftCard(id, last4, options));
  }

  /** The shipping methods the cart can take to its address, cheapest first. */
  shippingOptions(): Promise<ShippingOption[]> {
    const cart = this.#state.cart;
    return cart ? shopApi().carts.shippingOptions(cart.id) : Promise.resolve([]);
  }

  /** After checkout: the cart is an order now; the next item starts a new cart. */
  forget(): void {
    this.#set(null, null);
  }

  /** Going to pay an order again: the cart restored from it is forgotten, unless it was changed since. */
  forgetIfHolding(items: Items): void {
    if (this.#state.cart && sameItems(itemsOf(this.#state.cart), items)) this.forget();
  }
}

export const cartStore = new CartStore();

export function useCart(): CartState {
  const [state, setState] = useState(cartStore.state);
  useEffect(() => {
    const unsubscribe = cartStore.subscribe(setState);
    // A change between this component's first render and now (the cart read finishing while a
    // lazily loaded page mounted) would otherwise be missed until the next one.
    setState(cartStore.state);
    return unsubscribe;
  }, []);
  return state;
}

/** How many items the cart holds (for the header's badge). */
export function itemCount(cart: Cart | null): number {
  return (cart?.items ?? []).reduce((sum, line) => sum + line.quantity, 0);
}
