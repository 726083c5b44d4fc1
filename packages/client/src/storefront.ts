import {
  createTransport,
  paginate,
  randomUUID,
  retryTransient,
  sleep,
  type RetryOptions,
  type RetryPredicate,
  type TransportOptions,
} from './core.ts';
import { OrderNotPaidError, StorefrontError, StorefrontNetworkError, WaitTimeoutError } from './errors.ts';
import type { CustomersClient } from './customers.ts';
import { storefrontOperations } from './operations.ts';
import type {
  AddressInput,
  CacheableRead,
  CallOptions,
  Cart,
  CartInput,
  Checkout,
  CheckoutInput,
  Collection,
  ConditionalInput,
  ConditionalOperationId,
  ConditionalOptions,
  ListItem,
  ListOperationId,
  Menu,
  NotModified,
  Order,
  Page,
  Paginated,
  Product,
  ProductCard,
  QueryParams,
  Region,
  ShippingOption,
  RequestArgs,
  RequestInput,
  SandboxConfirmation,
  SandboxPaymentMethod,
  Store,
  StorefrontOperationId,
  SuccessBody,
} from './types.ts';

/** Search filters on option values (decision `storefront-search`): `{'option.Size': ['M', 'L']}`; not in the generated types. */
export type OptionFilters = { [option: `option.${string}`]: string | readonly string[] | undefined };

export interface StorefrontClientOptions extends TransportOptions {
  /** The store's publishable key (`pk_…`), sent as `X-Publishable-Key`. Public by design. */
  publishableKey: string;
  /**
   * A signed-in customer's token (`ct_…`) kept from an earlier visit (e.g. in `localStorage`), sent
   * as `Authorization: Bearer` on the customer calls and on checkout. Default: none (a guest).
   */
  customerToken?: string | null;
  /**
   * Called whenever the customer token changes: after `verify` (the new token), `signOut`, `erase`,
   * `setToken`, and when the service answers 401 to a call that carried it (the token expired or
   * was revoked: the client forgets it). Persist it here.
   */
  onCustomerTokenChange?: (token: string | null) => void;
}

export interface CheckoutOptions extends CallOptions {
  /**
   * The `Idempotency-Key` of this logical checkout (a UUID). Default: a new one per call. Pass your
   * own, kept e.g. in `sessionStorage` before the first attempt, to retry safely across page reloads.
   */
  idempotencyKey?: string;
  /** Retries with the same key (network errors, 409 idempotency_in_progress, 429, 502, 503, 504). Default 5 attempts. */
  retry?: RetryOptions;
}

export interface WaitForPaidOptions {
  /** Give up after this long (default 120 000 ms): rejects with WaitTimeoutError. */
  timeoutMs?: number;
  /** Time between polls (default 1000 ms). */
  intervalMs?: number;
  signal?: AbortSignal;
}

/** The options of a cacheable read, with or without `ifNoneMatch`. */
type ReadOptions = Partial<ConditionalOptions>;

/** A list's query without the cursor, which `listAll` manages. */
type ListQuery<K extends ListOperationId> = Omit<QueryParams<K>, 'cursor'>;

export interface StorefrontClient {
  /**
   * Calls a cacheable read with `If-None-Match`: resolves with the body, or with NotModified when
   * the representation named by the ETag is still current (304).
   */
  request<K extends ConditionalOperationId & StorefrontOperationId>(
    id: K,
    input: ConditionalInput<K>,
  ): Promise<SuccessBody<K> | NotModified>;
  /** Calls any Storefront API operation by its operationId, e.g. `request('getProduct', { path: { id } })`. */
  request<K extends StorefrontOperationId>(id: K, ...args: RequestArgs<K>): Promise<SuccessBody<K>>;
  /** Every item of a paginated list operation, following `nextCursor`. */
  list<K extends ListOperationId & StorefrontOperationId>(
    id: K,
    input?: Omit<RequestInput<K>, 'query'> & { query?: ListQuery<K> },
  ): AsyncGenerator<ListItem<K>, void, undefined>;

  /**
   * The catalog and content reads below are cacheable: each answer has an `ETag` (read it with
   * `onResponse`). Pass it back as `ifNoneMatch` and the read resolves with NotModified when your
   * copy is still current, else with the new body (see `isNotModified`).
   */
  store: { get: CacheableRead<[], Store> };
  products: {
    /**
     * One page of active products, as cards; with `q`, filters (`option.<Name>` among them, a value
     * or several) or `sort`, a search (decision `storefront-search`).
     */
    list: CacheableRead<[query?: QueryParams<'listProducts'> & OptionFilters], Paginated<ProductCard>>;
    /** Every active product card, page after page (`for await (const card of …)`). */
    listAll(query?: ListQuery<'listProducts'>, options?: CallOptions): AsyncGenerator<ProductCard>;
    get: CacheableRead<[id: string], Product>;
    /** One active product by its handle; an earlier handle's 301 is followed to the current one. */
    getByHandle: CacheableRead<[handle: string], Product>;
    /** The facets of a search: option values, price range, collections and stock, with counts. */
    facets: CacheableRead<
      [query?: QueryParams<'getProductFacets'> & OptionFilters],
      SuccessBody<'getProductFacets'>
    >;
  };
  collections: {
    list: CacheableRead<[query?: QueryParams<'listCollections'>], SuccessBody<'listCollections'>>;
    listAll(
      query?: ListQuery<'listCollections'>,
      options?: CallOptions,
    ): AsyncGenerator<ListItem<'listCollections'>>;
    get: CacheableRead<[slug: string], Collection>;
    /** One page of a collection's products. */
    listProducts: CacheableRead<
      [slug: string, query?: QueryParams<'listCollectionProducts'>],
      Paginated<ProductCard>
    >;
    listAllProducts(
      slug: string,
      query?: ListQuery<'listCollectionProducts'>,
      options?: CallOptions,
    ): AsyncGenerator<ProductCard>;
  };
  menus: {
    list: CacheableRead<[query?: QueryParams<'listMenus'>], SuccessBody<'listMenus'>>;
    listAll(query?: ListQuery<'listMenus'>, options?: CallOptions): AsyncGenerator<ListItem<'listMenus'>>;
    get: CacheableRead<[handle: string], Menu>;
  };
  pages: {
    list: CacheableRead<[query?: QueryParams<'listPages'>], SuccessBody<'listPages'>>;
    listAll(query?: ListQuery<'listPages'>, options?: CallOptions): AsyncGenerator<ListItem<'listPages'>>;
    get: CacheableRead<[slug: string], Page>;
  };
  regions: { get: CacheableRead<[key: string], Region> };
  carts: {
    create(body: CartInput, options?: CallOptions): Promise<Cart>;
    get(id: string, options?: CallOptions): Promise<Cart>;
    /**
     * Replaces the cart's lines. With `ifMatch` (the cart's `ETag`, read through `onResponse`) the write
     * fails with 412 precondition_failed when someone changed the cart meanwhile.
     */
    replace(id: string, body: CartInput, options?: CallOptions & { ifMatch?: string }): Promise<Cart>;
    /**
     * Sets where the cart ships to (decision `cart-shipping-and-totals`). A field its country's rules refuse is a 400 whose `errors`
     * point at it (`/postalCode`). Takes `ifMatch` like `replace`.
     */
    setShippingAddress(
      id: string,
      address: AddressInput,
      options?: CallOptions & { ifMatch?: string },
    ): Promise<Cart>;
    /** The shipping methods the cart can take to its address, cheapest first (409 before an address). */
    shippingOptions(id: string, options?: CallOptions): Promise<ShippingOption[]>;
    /** Chooses one of the cart's shipping options by its id; the cart's `totals` then include it. */
    setShippingMethod(
      id: string,
      methodId: string,
      options?: CallOptions & { ifMatch?: string },
    ): Promise<Cart>;
    /** Sets the cart's one discount code (409 discount_invalid when it cannot be used now). */
    setDiscountCode(id: string, code: string, options?: CallOptions & { ifMatch?: string }): Promise<Cart>;
    /** Removes every code the cart holds. */
    removeDiscountCode(id: string, options?: CallOptions & { ifMatch?: string }): Promise<Cart>;
    /**
     * Adds a code to the cart's codes (up to 5; 409 discount_invalid, 409 too_many_discount_codes).
     * `promotions` then says what applies, and a notice why a code takes nothing off.
     */
    addDiscountCode(id: string, code: string, options?: CallOptions & { ifMatch?: string }): Promise<Cart>;
    /** Removes one code from the cart's codes. */
    removeOneDiscountCode(
      id: string,
      code: string,
      options?: CallOptions & { ifMatch?: string },
    ): Promise<Cart>;
    /**
     * Pays part of the cart with a gift card, by its code (409 gift_card_invalid, 409
     * too_many_gift_cards, 429 rate_limited). `giftCards` then shows what it pays, and
     * `totals.amountDue` what is left for the payment provider.
     */
    addGiftCard(id: string, code: string, options?: CallOptions & { ifMatch?: string }): Promise<Cart>;
    /** Removes the gift card whose code ends in `last4`. */
    removeGiftCard(id: string, last4: string, options?: CallOptions & { ifMatch?: string }): Promise<Cart>;
  };
  checkout: {
    /**
     * Turns a cart into a pending order and a payment intent. Makes one `Idempotency-Key` for this
     * checkout and retries with that same key on network errors, 409 idempotency_in_progress, 429 and
     * 502/503/504 (honouring `Retry-After`), so a lost answer never orders twice. Other errors
     * (validation, insufficient_stock, …) are thrown at once; their `idempotencyKey` says which key
     * to retry with.
     */
    create(body: CheckoutInput, options?: CheckoutOptions): Promise<Checkout>;
  };
  orders: {
    get(id: string, options?: CallOptions): Promise<Order>;
    /**
     * Polls the order until its status is `paid` and resolves with it. Rejects with
     * OrderNotPaidError when it reaches a status that will not become paid (`expired`), with
     * WaitTimeoutError when time runs out, and with a StorefrontError the service answered that
     * polling cannot fix (404, 401, …). Network errors, 429 and 5xx are polled through.
     */
    waitForPaid(id: string, options?: WaitForPaidOptions): Promise<Order>;
  };
  /** Customer accounts: sign-in by code, the profile, addresses, orders, export and erasure (decision `erasure-is-immediate`). */
  customers: CustomersClient;
  sandbox: {
    /**
     * The built-in sandbox payment provider's hosted confirmation (`POST /sandbox/v1/payments/{ref}/confirm`,
     * no key needed): `pm_card_visa` succeeds, `pm_card_declined` fails, `pm_card_delayed` succeeds
     * after a delay. Only on servers running the sandbox provider (the default).
     */
    confirm(
      payment: { ref: string; clientSecret: string },
      paymentMethod?: SandboxPaymentMethod,
      options?: CallOptions,
    ): Promise<SandboxConfirmation>;
  };
}

/** The paths that carry a signed-in customer's token (the customer's own calls, and checkout). */
const CUSTOMER_PATHS = /^\/storefront\/v1\/(customers\/|checkout$)/;

/** Statuses from which an order never becomes paid. */
const TERMINAL_ORDER_STATUSES: ReadonlySet<string> = new Set(['expired', 'canceled', 'cancelled']);

/** Checkout retries: transient failures and a concurrent attempt with the same key; never a 4xx refusal. */
export const retryCheckout: RetryPredicate = (error) =>
  retryTransient(error) ||
  (!error.isNetworkError && error.status === 409 && error.title === 'idempotency_in_progress');

/** A client of the Storefront API (and the sandbox payment provider), authenticated with a publishable key. */
export function createStorefrontClient(options: StorefrontClientOptions): StorefrontClient {
  const { publishableKey } = options;
  if (typeof publishableKey !== 'string' || publishableKey === '') {
    throw new TypeError('publishableKey is required (pk_…)');
  }
  let customerToken = options.customerToken ?? null;
  const setToken = (token: string | null): void => {
    if (token !== null && (typeof token !== 'string' || token === ''))
      throw new TypeError('customer token: ct_… or null');
    if (token === customerToken) return;
    customerToken = token;
    options.onCustomerTokenChange?.(token);
  };
  const transport = createTransport(options, storefrontOperations, (path): Record<string, string> => {
    if (!path.startsWith('/storefront/')) return {};
    // The customer's token goes only where it means something: the customer calls and checkout.
    const sendsToken = customerToken !== null && CUSTOMER_PATHS.test(path);
    return sendsToken
      ? { 'x-publishable-key': publishableKey, authorization: `Bearer ${customerToken}` }
      : { 'x-publishable-key': publishableKey };
  });
  /**
   * A call that carries the customer's token: a 401 to it means the token expired or was revoked
   * (or belongs to another store), so the client forgets it. A token set meanwhile is kept.
   */
  const withToken = async <T>(send: () => Promise<T>): Promise<T> => {
    const sent = customerToken;
    try {
      return await send();
    } catch (error) {
      if (sent !== null && error instanceof StorefrontError && error.status === 401 && customerToken === sent)
        setToken(null);
      throw error;
    }
  };
  const call = <K extends StorefrontOperationId>(id: K, input?: RequestInput<K>) => transport.call(id, input);
  /** A write to a cart: `ifMatch` becomes the `If-Match` header (412 when the cart changed meanwhile). */
  const write = <K extends StorefrontOperationId>(
    id: K,
    input: { path: object; body?: unknown },
    { ifMatch, ...options }: CallOptions & { ifMatch?: string } = {},
  ) =>
    call(id, {
      ...options,
      ...input,
      ...(ifMatch === undefined ? {} : { header: { 'If-Match': ifMatch } }),
    } as RequestInput<K>);
  /** A cacheable read: `ifNoneMatch` becomes the `If-None-Match` header (a 304 then resolves to NotModified). */
  const read = <K extends StorefrontOperationId>(
    id: K,
    input: { path?: object; query?: object | undefined },
    { ifNoneMatch, ...options }: Partial<ConditionalOptions> = {},
  ) =>
    call(id, {
      ...options,
      ...input,
      ...(ifNoneMatch === undefined ? {} : { header: { 'If-None-Match': ifNoneMatch } }),
    } as RequestInput<K>);

  function list<K extends ListOperationId & StorefrontOperationId>(
    id: K,
    input?: Omit<RequestInput<K>, 'query'> & { query?: ListQuery<K> },
  ): AsyncGenerator<ListItem<K>, void, undefined> {
    return paginate((cursor) => {
      const query = { ...input?.query, ...(cursor === undefined ? {} : { cursor }) };
      return call(id, { ...input, query } as RequestInput<K>) as unknown as Promise<Paginated<ListItem<K>>>;
    });
  }

  return {
    request: (id: StorefrontOperationId, input?: RequestInput<StorefrontOperationId>) => call(id, input),
    list,
    store: { get: (options?: ReadOptions) => read('getStore', {}, options) },
    products: {
      list: (query?: QueryParams<'listProducts'>, options?: ReadOptions) =>
        read('listProducts', { query }, options),
      listAll: (query, options) => list('listProducts', { ...options, query }),
      get: (id: string, options?: ReadOptions) => read('getProduct', { path: { id } }, options),
      getByHandle: (handle: string, options?: ReadOptions) =>
        read('getProductByHandle', { path: { handle } }, options),
      facets: (query?: QueryParams<'getProductFacets'> & OptionFilters, options?: ReadOptions) =>
        read('getProductFacets', { query }, options),
    },
    collections: {
      list: (query?: QueryParams<'listCollections'>, options?: ReadOptions) =>
        read('listCollections', { query }, options),
      listAll: (query, options) => list('listCollections', { ...options, query }),
      get: (slug: string, options?: ReadOptions) => read('getCollection', { path: { slug } }, options),
      listProducts: (slug: string, query?: QueryParams<'listCollectionProducts'>, options?: ReadOptions) =>
        read('listCollectionProducts', { path: { slug }, query }, options),
      listAllProducts: (slug, query, options) =>
        list('listCollectionProducts', { ...options, path: { slug }, query }),
    },
    menus: {
      list: (query?: QueryParams<'listMenus'>, options?: ReadOptions) =>
        read('listMenus', { query }, options),
      listAll: (query, options) => list('listMenus', { ...options, query }),
      get: (handle: string, options?: ReadOptions) => read('getMenu', { path: { handle } }, options),
    },
    pages: {
      list: (query?: QueryParams<'listPages'>, options?: ReadOptions) =>
        read('listPages', { query }, options),
      listAll: (query, options) => list('listPages', { ...options, query }),
      get: (slug: string, options?: ReadOptions) => read('getPage', { path: { slug } }, options),
    },
    regions: { get: (key: string, options?: ReadOptions) => read('getRegion', { path: { key } }, options) },
    carts: {
      create: (body, options) => call('createCart', { ...options, body }),
      get: (id, options) => call('getCart', { ...options, path: { id } }),
      replace: (id, body, options) => write('replaceCart', { path: { id }, body }, options),
      setShippingAddress: (id, address, options) =>
        write('setCartShippingAddress', { path: { id }, body: address }, options),
      shippingOptions: async (id, options) =>
        (await call('listCartShippingOptions', { ...options, path: { id } })).items,
      setShippingMethod: (id, methodId, options) =>
        write('setCartShippingMethod', { path: { id }, body: { id: methodId } }, options),
      setDiscountCode: (id, code, options) =>
        write('setCartDiscountCode', { path: { id }, body: { code } }, options),
      removeDiscountCode: (id, options) => write('removeCartDiscountCode', { path: { id } }, options),
      addDiscountCode: (id, code, options) => write('addCartDiscountCode', { path: { id, code } }, options),
      removeOneDiscountCode: (id, code, options) =>
        write('removeCartDiscountCodeNamed', { path: { id, code } }, options),
      addGiftCard: (id, code, options) => write('addCartGiftCard', { path: { id }, body: { code } }, options),
      removeGiftCard: (id, last4, options) => write('removeCartGiftCard', { path: { id, last4 } }, options),
    },
    checkout: {
      create: (body, { idempotencyKey = randomUUID(), retry, ...options } = {}) =>
        withToken(() =>
          transport.call(
            'createCheckout',
            { ...options, body, header: { 'Idempotency-Key': idempotencyKey } },
            {
              idempotencyKey,
              retryable: retryCheckout,
              retry: { ...transport.retry, maxAttempts: 5, ...retry },
            },
          ),
        ),
    },
    customers: {
      get token() {
        return customerToken;
      },
      setToken,
      signIn: async (body, options) => {
        await call('customerRequestSignInCode', { ...options, body });
      },
      verify: async (body, options) => {
        const session = await call('customerVerifySignInCode', { ...options, body });
        setToken(session.token);
        return session;
      },
      signOut: async (options) => {
        if (customerToken === null) return;
        try {
          await call('customerSignOut', { ...options });
        } catch (error) {
          // Ended already (expired, revoked elsewhere): signed out all the same.
          if (!(error instanceof StorefrontError && error.status === 401)) throw error;
        } finally {
          setToken(null);
        }
      },
      me: (options) => withToken(() => call('getCurrentCustomer', { ...options })),
      update: (patch, options) => withToken(() => call('updateCurrentCustomer', { ...options, body: patch })),
      erase: async (options) => {
        await withToken(() => call('eraseCurrentCustomer', { ...options }));
        setToken(null);
      },
      addresses: {
        list: async (options) => (await withToken(() => call('listCustomerAddresses', { ...options }))).items,
        create: (body, options) => withToken(() => call('createCustomerAddress', { ...options, body })),
        update: (id, patch, options) =>
          withToken(() => call('updateCustomerAddress', { ...options, path: { id }, body: patch })),
        delete: async (id, options) => {
          await withToken(() => call('deleteCustomerAddress', { ...options, path: { id } }));
        },
      },
      orders: (query, options) => withToken(() => call('listCurrentCustomerOrders', { ...options, query })),
      export: (options) => withToken(() => call('exportCurrentCustomer', { ...options })),
    },
    orders: {
      get: (id, options) => call('getOrder', { ...options, path: { id } }),
      async waitForPaid(id, { timeoutMs = 120_000, intervalMs = 1000, signal } = {}) {
        const deadline = Date.now() + timeoutMs;
        let last: Order | null = null;
        for (;;) {
          /** Why this poll failed, when it did (a network error, 429, 5xx). */
          let pollError: unknown = null;
          try {
            // One attempt per poll: the polling itself is the retry.
            last = await transport.call(
              'getOrder',
              { path: { id }, signal },
              { retry: { ...transport.retry, maxAttempts: 1 } },
            );
            if (last.status === 'paid') return last;
            if (TERMINAL_ORDER_STATUSES.has(last.status)) throw new OrderNotPaidError(last);
          } catch (error) {
            const known = error instanceof StorefrontError || error instanceof StorefrontNetworkError;
            if (!known || signal?.aborted || !retryTransient(error)) throw error;
            pollError = error;
          }
          const left = deadline - Date.now();
          if (left <= 0) throw new WaitTimeoutError(id, timeoutMs, last, pollError);
          await sleep(Math.min(intervalMs, left), signal);
        }
      },
    },
    sandbox: {
      confirm: (payment, paymentMethod = 'pm_card_visa', options) =>
        call('confirmSandboxPayment', {
          ...options,
          path: { ref: payment.ref },
          body: { clientSecret: payment.clientSecret, paymentMethod },
        }),
    },
  };
}
