/**
 * The type of `client.customers` (the signed-in customer's calls); `createStorefrontClient` builds it
 * beside the token it keeps and sends.
 */
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
