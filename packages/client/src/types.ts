/**
 * Types of the client, from the generated schema.d.ts: the document's named schemas
 * (`components.schemas`: Product, Cart, Order, Problem…) under their own names, and per-operation
 * types (parameters, request body, responses) keyed by operationId.
 */
import type { OperationId } from './operations.ts';
import type { components, operations, webhooks } from './schema.js';

export type { OperationId };
export type { components, operations, paths, webhooks } from './schema.js';

type Schemas = components['schemas'];

type Op<K extends OperationId> = operations[K];
type Responses<K extends OperationId> = Op<K>['responses'];
type IsNever<T> = [T] extends [never] ? true : false;
/** Whether every member of T is optional (so `{}` is a T). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- `{} extends T` is exactly that question
type AllOptional<T> = {} extends T ? true : false;

/** The body of one response object: its content (any media type), or `undefined` without one (204). */
type BodyOf<R> = R extends { content: infer C } ? C[keyof C] : undefined;

/** Response keys by class: `200`, `201`, `2XX` are successes; `4XX`, `404`, `5XX`, `default` errors (a 304 is neither). */
type KeysOfClass<K extends OperationId, Pattern extends string> = {
  [S in keyof Responses<K>]: `${S & (string | number)}` extends Pattern ? S : never;
}[keyof Responses<K>];
type SuccessKey<K extends OperationId> = KeysOfClass<K, `2${string}`>;
type ErrorKey<K extends OperationId> = KeysOfClass<K, `4${string}` | `5${string}` | 'default'>;

/** What a successful call of the operation answers (the body of its 2xx responses). */
export type SuccessBody<K extends OperationId> = {
  [S in SuccessKey<K>]: BodyOf<Responses<K>[S]>;
}[SuccessKey<K>];

/** What a failed call answers: the problem+json body of its 4XX/5XX responses. */
export type ErrorBody<K extends OperationId> = {
  [S in ErrorKey<K>]: BodyOf<Responses<K>[S]>;
}[ErrorKey<K>];

export type PathParams<K extends OperationId> = NonNullable<Op<K>['parameters']['path']>;
export type QueryParams<K extends OperationId> = NonNullable<Op<K>['parameters']['query']>;
export type HeaderParams<K extends OperationId> = NonNullable<Op<K>['parameters']['header']>;
/** The JSON request body of the operation (never when it takes none). */
export type RequestBody<K extends OperationId> =
  NonNullable<Op<K>['requestBody']> extends { content: infer C } ? C[keyof C] : never;

/** Options every call takes. */
export interface CallOptions {
  /** Extra request headers for this call. */
  headers?: Record<string, string>;
  /** Aborts the call (and its retries, and the waits between them). */
  signal?: AbortSignal;
  /**
   * Called with every HTTP response this call receives (each attempt), before the client reads its
   * body (so do not consume the body here): read `ETag`, `Idempotent-Replayed`, `X-Request-Id` or
   * `RateLimit-*`.
   */
  onResponse?: (response: Response) => void;
}

/**
 * What a conditional read answers when the representation named by its `If-None-Match` is still
 * current (HTTP 304 Not Modified, no body): keep using the copy you have. Only reads given an
 * `ifNoneMatch` (or the `If-None-Match` header parameter) answer it, and their result type says so.
 */
export interface NotModified {
  readonly notModified: true;
  /** The current ETag: the one you sent, still valid. */
  readonly etag: string;
}

/** The options of a cacheable read sent with `If-None-Match`: it may answer NotModified. */
export interface ConditionalOptions extends CallOptions {
  /**
   * The `ETag` of the copy you hold (read it with `onResponse`). When it is still current the read
   * resolves with NotModified instead of the body. `undefined` sends no `If-None-Match`.
   */
  ifNoneMatch: string | undefined;
}

/** The options of a cacheable read without `ifNoneMatch`: it resolves with the body. */
export type UnconditionalOptions = CallOptions & { ifNoneMatch?: undefined };

/**
 * A cacheable read (it answers an `ETag`) taking `Args` and then its options: with `ifNoneMatch`
 * it resolves with `T` or NotModified, without it with `T`.
 */
export interface CacheableRead<Args extends unknown[], T> {
  (...args: [...args: Args, options: ConditionalOptions]): Promise<T | NotModified>;
  (...args: [...args: Args, options?: UnconditionalOptions]): Promise<T>;
}

type Part<Name extends string, T, Optional extends boolean> =
  IsNever<T> extends true
    ? { [P in Name]?: undefined }
    : Optional extends true
      ? { [P in Name]?: T }
      : { [P in Name]: T };

/** The input of a generic `request(operationId, input)`: path and query parameters, header parameters, body. */
export type RequestInput<K extends OperationId> = Part<'path', PathParams<K>, false> &
  Part<'query', QueryParams<K>, AllOptional<QueryParams<K>>> &
  Part<'header', HeaderParams<K>, AllOptional<HeaderParams<K>>> &
  Part<'body', RequestBody<K>, undefined extends Op<K>['requestBody'] ? true : false> &
  CallOptions;

/** `request(id)` may leave out the input when nothing in it is required. */
export type RequestArgs<K extends OperationId> =
  AllOptional<RequestInput<K>> extends true ? [input?: RequestInput<K>] : [input: RequestInput<K>];

/** Operations that take `If-None-Match` (the cacheable reads: 304 Not Modified). */
export type ConditionalOperationId = {
  [K in OperationId]: IsNever<HeaderParams<K>> extends true
    ? never
    : 'If-None-Match' extends keyof HeaderParams<K>
      ? K
      : never;
}[OperationId];

/** The input of a `request` sent with `If-None-Match`: it may answer NotModified. */
export type ConditionalInput<K extends ConditionalOperationId> = RequestInput<K> & {
  header: { 'If-None-Match': string };
};

/** One page of a list: the envelope every list answers with. */
export interface Paginated<T> {
  items: T[];
  nextCursor: string | null;
}

/** Operations that answer a cursor-paginated list (`items` + `nextCursor`, a `cursor` query parameter). */
export type ListOperationId = {
  [K in OperationId]: SuccessBody<K> extends Paginated<unknown>
    ? 'cursor' extends keyof QueryParams<K>
      ? K
      : never
    : never;
}[OperationId];

/** The item type of a list operation. */
export type ListItem<K extends OperationId> = SuccessBody<K> extends Paginated<infer T> ? T : never;

/**
 * Operations of the Storefront API (and the sandbox payment provider), for the storefront client.
 * Not the sandbox's hosted payment page: a browser opens it with an HTML form post (docs/checkout.md).
 */
export type StorefrontOperationId = Exclude<
  OperationId,
  | `admin${string}`
  | 'getLiveness'
  | 'getReadiness'
  | 'receivePaymentWebhook'
  | 'openSandboxPaymentPage'
  | 'confirmSandboxPaymentPage'
>;
/** Operations of the Admin API. */
export type AdminOperationId = Extract<OperationId, `admin${string}`>;

// ---- Named types of the Storefront API (the document's component schemas) ----

export type Store = Schemas['StorefrontStore'];
/** A product as lists show it. */
export type ProductCard = Schemas['ProductCard'];
/** A product with its variants, as its page shows it. */
export type Product = Schemas['ProductDetail'];
export type Variant = Schemas['Variant'];
export type Collection = Schemas['Collection'];
export type Menu = Schemas['Menu'];
export type MenuSummary = ListItem<'listMenus'>;
export type Page = Schemas['Page'];
export type PageSummary = ListItem<'listPages'>;
export type Region = Schemas['Region'];
export type Cart = Schemas['Cart'];
export type CartLine = Schemas['Line'];
export type CartInput = Schemas['CartInput'];
/** A postal address as the API returns it (decision `postal-addresses`); `AddressInput` is what it takes. */
export type Address = Schemas['Address'];
export type AddressInput = Schemas['AddressInput'];
/** A shipping method a cart can take, with what it costs (decision `cart-shipping-and-totals`). */
export type ShippingOption = Schemas['ShippingOption'];
export type CartTotals = Schemas['CartTotals'];
export type CartNotice = Schemas['CartNotice'];
export type CheckoutInput = Schemas['CheckoutInput'];
/** What checkout answers: the pending order and the payment to confirm with the provider. */
export type Checkout = Schemas['CheckoutResult'];
export type Order = Schemas['StorefrontOrder'];
export type OrderStatus = Order['status'];
/** The payment of a checkout: `ref` and `clientSecret` go to the provider's payment element. */
export type Payment = Schemas['CheckoutPayment'];
/** An amount in integer minor units with its ISO 4217 currency. */
export type Money = Schemas['Money'];
export type SandboxPaymentMethod = RequestBody<'confirmSandboxPayment'>['paymentMethod'];
export type SandboxConfirmation = SuccessBody<'confirmSandboxPayment'>;

/** A customer account (decision `customer-accounts`) as the customer sees it. */
export type Customer = Schemas['Customer'];
/** What `customers.verify` answers: the session's `token` (`ct_…`), `expiresAt` and the `customer`. */
export type CustomerSession = Schemas['CustomerSession'];
/** The fields `customers.update` changes: `name`, `phone` (null clears them), `acceptsMarketing`. */
export type CustomerUpdate = Schemas['CustomerUpdate'];
/** A saved address of the customer: an address with its `id`, `isDefault` and times. */
export type CustomerAddress = Schemas['CustomerAddress'];
/** A new saved address: an address, and `isDefault` to make it the default. */
export type CustomerAddressInput = Schemas['CustomerAddressInput'];
/** A change to a saved address: some of its fields, `isDefault: true` to make it the default. */
export type CustomerAddressPatch = Schemas['CustomerAddressUpdate'];
/** Everything the store holds about the customer: profile, addresses, orders, mail, sessions. */
export type CustomerExport = Schemas['CustomerExport'];

/** An RFC 9457 problem, as every error response carries it. */
export type Problem = Schemas['Problem'];
/** A 422 problem: `errors` names each input at fault by JSON pointer. */
export type ValidationProblem = Schemas['ValidationProblem'];
/** One entry of a problem's `errors`: which input is at fault. */
export type ProblemFieldError = Schemas['FieldError'];
/** One `errors` entry of an `insufficient_stock` problem (checkout): a line the stock cannot cover. */
export type StockShortfall = ProblemFieldError & { variantId: string; requested: number; available: number };

// ---- Named types of the Admin API ----

export type AdminProduct = Schemas['AdminProduct'];
export type AdminProductInput = Schemas['NewProduct'];
export type AdminOrder = Schemas['AdminOrder'];
export type AdminOrderSummary = ListItem<'adminListOrders'>;
/** A payment of an order as the Admin API shows it (no client secret). */
export type AdminPayment = Schemas['Payment'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
/** The endpoint as created or rotated: with its signing `secret`, shown once. */
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type StorefrontKey = Schemas['StorefrontKey'];
/** The key as created: with the full `pk_` key, shown once. */
export type StorefrontKeyWithSecret = Schemas['CreatedStorefrontKey'];

// ---- Webhooks (the document's `webhooks` section) ----

/** The event types an endpoint can subscribe to (without the `*` wildcard). */
export type WebhookEventType = keyof webhooks;
/** The body Storefront posts for each event type. */
export type WebhookEventMap = {
  [E in WebhookEventType]: NonNullable<webhooks[E]['post']['requestBody']>['content']['application/json'];
};
/**
 * The body of a webhook request: a union discriminated by `event`, so `if (e.event === 'order.paid')`
 * narrows `e.data` to that event's payload. Deduplicate on `id`: delivery is at least once.
 */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = WebhookEventMap[T];
