/**
 * Types derived from the generated `operations` (schema.d.ts), keyed by operationId. Everything
 * here reads an operation's parameters, request body and responses, so it keeps working whether
 * the document inlines its schemas (today) or names them under `components` ($ref).
 */
import type { OperationId } from './operations.ts';
import type { operations } from './schema.js';

export type { OperationId };
export type { operations, paths } from './schema.js';

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

/** Operations of the Storefront API (and the sandbox payment provider), for the storefront client. */
export type StorefrontOperationId = Exclude<
  OperationId,
  `admin${string}` | 'getLiveness' | 'getReadiness' | 'receivePaymentWebhook'
>;
/** Operations of the Admin API. */
export type AdminOperationId = Extract<OperationId, `admin${string}`>;

// ---- Named types of the Storefront API (derived from the operations' responses) ----

export type Store = SuccessBody<'getStore'>;
export type ProductCard = ListItem<'listProducts'>;
export type Product = SuccessBody<'getProduct'>;
export type Variant = Product['variants'][number];
export type Collection = SuccessBody<'getCollection'>;
export type Menu = SuccessBody<'getMenu'>;
export type MenuSummary = ListItem<'listMenus'>;
export type Page = SuccessBody<'getPage'>;
export type PageSummary = ListItem<'listPages'>;
export type Region = SuccessBody<'getRegion'>;
export type Cart = SuccessBody<'getCart'>;
export type CartLine = Cart['items'][number];
export type CartInput = RequestBody<'createCart'>;
export type CheckoutInput = RequestBody<'createCheckout'>;
export type Checkout = SuccessBody<'createCheckout'>;
export type Order = SuccessBody<'getOrder'>;
export type OrderStatus = Order['status'];
/** The payment of a checkout: `ref` and `clientSecret` go to the provider's payment element. */
export type Payment = Checkout['payment'];
export type Money = Order['total'];
export type SandboxPaymentMethod = RequestBody<'confirmSandboxPayment'>['paymentMethod'];
export type SandboxConfirmation = SuccessBody<'confirmSandboxPayment'>;

/** An RFC 9457 problem, as every error response carries it. */
export type Problem = ErrorBody<'getProduct'>;
/** One entry of a problem's `errors`: which input is at fault. */
export type ProblemFieldError = NonNullable<Problem['errors']>[number];

// ---- Named types of the Admin API ----

export type AdminProduct = SuccessBody<'adminGetProduct'>;
export type AdminProductInput = RequestBody<'adminCreateProduct'>;
export type AdminOrder = SuccessBody<'adminGetOrder'>;
export type AdminOrderSummary = ListItem<'adminListOrders'>;
export type WebhookEndpoint = SuccessBody<'adminGetWebhookEndpoint'>;
/** The endpoint as created or rotated: with its signing `secret`, shown once. */
export type WebhookEndpointWithSecret = SuccessBody<'adminCreateWebhookEndpoint'>;
export type WebhookDelivery = SuccessBody<'adminGetWebhookDelivery'>;
export type StorefrontKey = SuccessBody<'adminGetStorefrontKey'>;
/** The key as created: with the full `pk_` key, shown once. */
export type StorefrontKeyWithSecret = SuccessBody<'adminCreateStorefrontKey'>;

/** The event types an endpoint can subscribe to (without the `*` wildcard). */
export type WebhookEventType = Exclude<RequestBody<'adminCreateWebhookEndpoint'>['events'][number], '*'>;
