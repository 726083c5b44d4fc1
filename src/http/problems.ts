/**
 * Every problem `title` the API returns, with its status and what it means: the catalogue the
 * OpenAPI document lists per operation (a route names its own with `'x-problems'`; the ones every
 * route of a surface can return are added by the document builder) and docs/api-conventions.md
 * explains. A title is a stable code: never renamed, never reused with another meaning.
 */
export const PROBLEMS = {
  validation_failed: [400, 'The request is malformed; `errors[]` points at each offending value.'],
  idempotency_key_required: [400, 'The Idempotency-Key header (a UUID) is missing or not a UUID.'],
  order_too_large: [400, 'The order total exceeds what a single payment can carry.'],
  invalid_signature: [400, 'The provider webhook signature does not verify.'],
  unauthorized: [401, 'No credential, or one that is unknown, revoked or expired.'],
  forbidden: [403, 'The credential is valid but may not do this (role, or origin not allowed).'],
  not_found: [404, 'No such resource in this store.'],
  method_not_allowed: [405, 'The path exists but not with this method; see the Allow header.'],
  not_acceptable: [406, 'The Accept header allows nothing the API sends (JSON).'],
  conflict: [409, 'The request conflicts with the current state.'],
  slug_unavailable: [409, 'Another resource of this store already uses that slug.'],
  limit_reached: [409, 'A per-store limit would be exceeded.'],
  insufficient_stock: [409, 'Not enough sellable stock; `errors[]` names each short line.'],
  stock_reserved: [409, 'On hand cannot go below what is reserved by pending orders.'],
  sku_unavailable: [409, 'Another variant of this store already uses that SKU.'],
  cart_completed: [409, 'The cart has been checked out and can no longer change.'],
  cart_empty: [409, 'The cart has no lines to check out.'],
  cart_changed: [409, 'A price or the stock changed since the cart was read; read it again.'],
  discount_invalid: [409, 'The discount code is unknown, expired or used up.'],
  discount_exists: [409, 'A discount with that code exists already.'],
  shipping_zone_conflict: [409, 'Another shipping zone of this store already covers that place.'],
  shipping_address_required: [409, 'The cart has no shipping address yet; set it first.'],
  shipping_method_unavailable: [409, 'That shipping method is not one of the cart’s shipping options.'],
  order_not_paid: [409, 'Only a paid order can be refunded.'],
  refund_too_large: [409, 'The refund exceeds what is left to refund.'],
  refund_rejected: [409, 'The payment provider refused the refund.'],
  idempotency_in_progress: [
    409,
    'A request with this Idempotency-Key is still being processed; retry after Retry-After.',
  ],
  staff_exists: [409, 'That address is already a staff member of this store.'],
  last_owner: [409, 'The last owner cannot be removed or demoted.'],
  domain_unavailable: [409, 'The domain is in use by another store (or is the platform domain).'],
  sending_domain_exists: [409, 'This store already has a sending domain; delete it first.'],
  app_already_installed: [409, 'The app is installed already.'],
  payment_not_confirmable: [409, 'The payment is not in a state that can be confirmed.'],
  endpoint_disabled: [409, 'The webhook endpoint is disabled; enable it first.'],
  replay_in_progress: [409, 'A replay of this endpoint is still running.'],
  test_delivery_not_retryable: [409, 'A test delivery is not sent again; send a new test.'],
  precondition_failed: [412, 'If-Match does not match the current ETag; read again and retry.'],
  payload_too_large: [413, 'The body exceeds 1 MiB.'],
  uri_too_long: [414, 'A path segment or the URL is too long.'],
  unsupported_media_type: [415, 'Bodies are application/json only.'],
  idempotency_key_reused: [422, 'This Idempotency-Key was used with a different body.'],
  unprocessable_content: [422, 'The request is well-formed but cannot be processed.'],
  rate_limited: [429, 'Too many requests; retry after Retry-After seconds.'],
  too_many_pending_orders: [
    429,
    'This client or email holds the most unpaid orders a store allows (PENDING_ORDERS_PER_CLIENT); pay one or retry after Retry-After, when one expires.',
  ],
  request_header_fields_too_large: [431, 'The request headers are too large.'],
  internal_error: [500, 'An unexpected error; the request id identifies it in the logs.'],
  provider_unavailable: [502, 'The payment provider did not answer; nothing was charged or kept.'],
  service_unavailable: [503, 'Shutting down, or the database is unavailable; retry after Retry-After.'],
} as const satisfies Record<string, readonly [number, string]>;

export type ProblemTitle = keyof typeof PROBLEMS;
