/**
 * The signed-in customer's side of the Storefront client: the token it holds (`ct_…`) and the
 * customer calls that use it (sign-in by emailed code, the profile, saved addresses, orders, export
 * and erasure).
 */
import { StorefrontError } from './errors.ts';
import type {
  CallOptions,
  Customer,
  CustomerAddress,
  CustomerAddressInput,
  CustomerAddressPatch,
  CustomerExport,
  CustomerSession,
  CustomerUpdate,
  Order,
  Paginated,
  QueryParams,
  RequestBody,
  RequestInput,
  StorefrontOperationId,
  SuccessBody,
} from './types.ts';

/** Customer accounts (decision `erasure-is-immediate`): sign-in by emailed code, the profile, saved addresses, orders, export and erasure. */
export interface CustomersClient {
  /**
   * The signed-in customer's token (`ct_…`), or null for a guest. Sent as `Authorization: Bearer`
   * (beside `X-Publishable-Key`) on every `/customers/…` call and on checkout.
   */
  readonly token: string | null;
  /** Sets the token (restored from storage) or forgets it (`null`), without calling the service. */
  setToken(token: string | null): void;
  /**
   * Emails a 6-digit sign-in code to `email` (valid 10 minutes, once). Always answers `{status:
   * 'sent'}`, also for an email without an account: the code creates it.
   */
  signIn(body: RequestBody<'customerRequestSignInCode'>, options?: CallOptions): Promise<void>;
  /**
   * Exchanges the emailed code for a session: the client keeps its token (see `token`) and resolves
   * with the session (`token`, `expiresAt`, `customer`). A wrong or expired code is a 401 `unauthorized`.
   */
  verify(body: RequestBody<'customerVerifySignInCode'>, options?: CallOptions): Promise<CustomerSession>;
  /** Revokes the session on the service and forgets the token (also when the service had ended it already). */
  signOut(options?: CallOptions): Promise<void>;
  /** The signed-in customer (401 without a valid token). */
  me(options?: CallOptions): Promise<Customer>;
  /** Changes the name, phone or marketing consent; `null` clears a name or phone. */
  update(patch: CustomerUpdate, options?: CallOptions): Promise<Customer>;
  /**
   * Erases the account: profile, addresses and sessions deleted, personal data on its orders and
   * mail scrubbed. The token is forgotten. Cannot be undone.
   */
  erase(options?: CallOptions): Promise<void>;
  addresses: {
    /** The saved addresses, the default first, then the newest. */
    list(options?: CallOptions): Promise<CustomerAddress[]>;
    /** Saves an address (the first one becomes the default; at most 20: 409 `limit_reached`). */
    create(body: CustomerAddressInput, options?: CallOptions): Promise<CustomerAddress>;
    /** Changes some fields (checked as a whole address: a bad field is a 400 pointing at it); `isDefault: true` makes it the default. */
    update(id: string, patch: CustomerAddressPatch, options?: CallOptions): Promise<CustomerAddress>;
    delete(id: string, options?: CallOptions): Promise<void>;
  };
  /**
   * One page of the customer's orders, newest first (each as `orders.get` shows it). Every page:
   * `for await (const order of client.list('listCurrentCustomerOrders'))`.
   */
  orders(query?: QueryParams<'listCurrentCustomerOrders'>, options?: CallOptions): Promise<Paginated<Order>>;
  /** Everything the store holds about the customer, as JSON (profile, addresses, orders, mail, sessions). */
  export(options?: CallOptions): Promise<CustomerExport>;
}

/**
 * The customer token a client holds: the one it sends, told to `onChange` whenever it changes, and
 * forgotten when the service answers 401 to a call that carried it.
 */
export class CustomerToken {
  #token: string | null;
  readonly #onChange: ((token: string | null) => void) | undefined;

  constructor(token: string | null, onChange?: (token: string | null) => void) {
    this.#token = token;
    this.#onChange = onChange;
  }

  get current(): string | null {
    return this.#token;
  }

  set(token: string | null): void {
    if (token !== null && (typeof token !== 'string' || token === ''))
      throw new TypeError('customer token: ct_… or null');
    if (token === this.#token) return;
    this.#token = token;
    this.#onChange?.(token);
  }

  /**
   * A call that carries the token: a 401 to it means the token expired or was revoked (or belongs to
   * another store), so the client forgets it. A token set meanwhile is kept.
   */
  async sending<T>(send: () => Promise<T>): Promise<T> {
    const sent = this.#token;
    try {
      return await send();
    } catch (error) {
      if (sent !== null && error instanceof StorefrontError && error.status === 401 && this.#token === sent)
        this.set(null);
      throw error;
    }
  }
}

/** How the customer calls reach the service: the Storefront client's own transport. */
type Call = <K extends StorefrontOperationId>(id: K, input?: RequestInput<K>) => Promise<SuccessBody<K>>;

export function createCustomersClient(call: Call, tokens: CustomerToken): CustomersClient {
  const withToken = <T>(send: () => Promise<T>): Promise<T> => tokens.sending(send);
  return {
    get token() {
      return tokens.current;
    },
    setToken: (token) => tokens.set(token),
    signIn: async (body, options) => {
      await call('customerRequestSignInCode', { ...options, body });
    },
    verify: async (body, options) => {
      const session = await call('customerVerifySignInCode', { ...options, body });
      tokens.set(session.token);
      return session;
    },
    signOut: async (options) => {
      if (tokens.current === null) return;
      try {
        await call('customerSignOut', { ...options });
      } catch (error) {
        // Ended already (expired, revoked elsewhere): signed out all the same.
        if (!(error instanceof StorefrontError && error.status === 401)) throw error;
      } finally {
        tokens.set(null);
      }
    },
    me: (options) => withToken(() => call('getCurrentCustomer', { ...options })),
    update: (patch, options) => withToken(() => call('updateCurrentCustomer', { ...options, body: patch })),
    erase: async (options) => {
      await withToken(() => call('eraseCurrentCustomer', { ...options }));
      tokens.set(null);
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
  };
}
