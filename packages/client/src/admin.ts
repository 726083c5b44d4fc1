import { createTransport, paginate, randomUUID, type TransportOptions } from './core.ts';
import { ADMIN_PREFIX, adminOperations } from './operations.ts';
import type {
  AdminOperationId,
  AdminOrder,
  AdminOrderSummary,
  AdminProduct,
  AdminProductInput,
  CallOptions,
  ListItem,
  ListOperationId,
  Paginated,
  QueryParams,
  RequestArgs,
  RequestBody,
  RequestInput,
  StorefrontKey,
  StorefrontKeyWithSecret,
  SuccessBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './types.ts';

export interface AdminClientOptions extends TransportOptions {
  /**
   * A staff session token (`st_…`), sent as `Authorization: Bearer`. A secret: use it server-side,
   * or from a page of the service's own origin (the console at /admin). `null` before signing in:
   * only `adminRequestSignInCode` and `adminVerifySignInCode` work without one.
   */
  token: string | null;
}

type ListQuery<K extends ListOperationId> = Omit<QueryParams<K>, 'cursor'>;

/** A write that places a draft order: its `Idempotency-Key` (default: a new one per call; pass your own to retry safely). */
export interface PlaceDraftOptions extends CallOptions {
  idempotencyKey?: string;
}
type ListInput<K extends ListOperationId> = Omit<RequestInput<K>, 'query'> & { query?: ListQuery<K> };

export interface AdminClient {
  /** Calls any Admin API operation by its operationId, e.g. `request('adminListOrders', { query: { status: 'paid' } })`. */
  request<K extends AdminOperationId>(id: K, ...args: RequestArgs<K>): Promise<SuccessBody<K>>;
  /** Every item of a paginated admin list, following `nextCursor`: `for await (const o of admin.list('adminListOrders'))`. */
  list<K extends ListOperationId & AdminOperationId>(
    id: K,
    input?: ListInput<K>,
  ): AsyncGenerator<ListItem<K>, void, undefined>;

  products: {
    list(
      query?: QueryParams<'adminListProducts'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminListProducts'>>;
    listAll(
      query?: ListQuery<'adminListProducts'>,
      options?: CallOptions,
    ): AsyncGenerator<ListItem<'adminListProducts'>>;
    get(id: string, options?: CallOptions): Promise<AdminProduct>;
    create(body: AdminProductInput, options?: CallOptions): Promise<SuccessBody<'adminCreateProduct'>>;
    update(
      id: string,
      body: RequestBody<'adminUpdateProduct'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminUpdateProduct'>>;
    delete(id: string, options?: CallOptions): Promise<void>;
    addVariant(
      productId: string,
      body: RequestBody<'adminCreateVariant'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminCreateVariant'>>;
    updateVariant(
      variantId: string,
      body: RequestBody<'adminUpdateVariant'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminUpdateVariant'>>;
  };
  orders: {
    list(
      query?: QueryParams<'adminListOrders'>,
      options?: CallOptions,
    ): Promise<Paginated<AdminOrderSummary>>;
    listAll(query?: ListQuery<'adminListOrders'>, options?: CallOptions): AsyncGenerator<AdminOrderSummary>;
    get(id: string, options?: CallOptions): Promise<AdminOrder>;
    refund(
      id: string,
      body: RequestBody<'adminCreateRefund'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminCreateRefund'>>;
    /** Ships units of a paid order (decision `fulfilments`); the answer is the new fulfilment. */
    fulfil(
      id: string,
      body: RequestBody<'adminCreateFulfillment'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminCreateFulfillment'>>;
    updateFulfillment(
      id: string,
      fulfillmentId: string,
      body: RequestBody<'adminUpdateFulfillment'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminUpdateFulfillment'>>;
    cancelFulfillment(
      id: string,
      fulfillmentId: string,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminCancelFulfillment'>>;
    /** Cancels an order (decision `order-cancellation`): restock and refund default to true; idempotent. */
    cancel(
      id: string,
      body?: RequestBody<'adminCancelOrder'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminCancelOrder'>>;
    /** Records units that came back (decision `returns`); the refund defaults to their share. */
    createReturn(
      id: string,
      body: RequestBody<'adminCreateReturn'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminCreateReturn'>>;
    /** What such a return would refund by default; nothing is written. */
    previewReturn(
      id: string,
      body: RequestBody<'adminPreviewReturn'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminPreviewReturn'>>;
  };
  /**
   * Draft orders (decision `draft-orders`): priced as checkout prices them; `invoice` mails a link to
   * pay (stock held until `reserveUntil`), `complete` records a payment taken outside (role admin).
   * A draft makes one order at most: placing it again answers with that order.
   */
  draftOrders: {
    create(
      body: RequestBody<'adminCreateDraftOrder'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminCreateDraftOrder'>>;
    list(
      query?: QueryParams<'adminListDraftOrders'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminListDraftOrders'>>;
    listAll(
      query?: ListQuery<'adminListDraftOrders'>,
      options?: CallOptions,
    ): AsyncGenerator<ListItem<'adminListDraftOrders'>>;
    get(id: string, options?: CallOptions): Promise<SuccessBody<'adminGetDraftOrder'>>;
    update(
      id: string,
      body: RequestBody<'adminUpdateDraftOrder'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminUpdateDraftOrder'>>;
    delete(id: string, options?: CallOptions): Promise<void>;
    invoice(id: string, options?: PlaceDraftOptions): Promise<SuccessBody<'adminInvoiceDraftOrder'>>;
    complete(id: string, options?: PlaceDraftOptions): Promise<SuccessBody<'adminCompleteDraftOrder'>>;
  };
  webhookEndpoints: {
    /** Registers an endpoint; the answer carries its signing `secret`, shown this once. */
    create(
      body: RequestBody<'adminCreateWebhookEndpoint'>,
      options?: CallOptions,
    ): Promise<WebhookEndpointWithSecret>;
    list(
      query?: QueryParams<'adminListWebhookEndpoints'>,
      options?: CallOptions,
    ): Promise<Paginated<ListItem<'adminListWebhookEndpoints'>>>;
    listAll(
      query?: ListQuery<'adminListWebhookEndpoints'>,
      options?: CallOptions,
    ): AsyncGenerator<ListItem<'adminListWebhookEndpoints'>>;
    get(id: string, options?: CallOptions): Promise<WebhookEndpoint>;
    update(
      id: string,
      body: RequestBody<'adminUpdateWebhookEndpoint'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminUpdateWebhookEndpoint'>>;
    delete(id: string, options?: CallOptions): Promise<void>;
    /** A new secret (returned once); the previous one keeps signing alongside it for 24 hours. */
    rotateSecret(id: string, options?: CallOptions): Promise<SuccessBody<'adminRotateWebhookSecret'>>;
    /** Sends one signed test envelope now and answers with what the endpoint answered. */
    sendTest(
      id: string,
      body?: RequestBody<'adminSendTestWebhook'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminSendTestWebhook'>>;
    replay(
      id: string,
      body: RequestBody<'adminReplayWebhooks'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminReplayWebhooks'>>;
  };
  webhookDeliveries: {
    list(
      query?: QueryParams<'adminListWebhookDeliveries'>,
      options?: CallOptions,
    ): Promise<Paginated<ListItem<'adminListWebhookDeliveries'>>>;
    listAll(
      query?: ListQuery<'adminListWebhookDeliveries'>,
      options?: CallOptions,
    ): AsyncGenerator<ListItem<'adminListWebhookDeliveries'>>;
    get(id: string, options?: CallOptions): Promise<WebhookDelivery>;
    retry(id: string, options?: CallOptions): Promise<SuccessBody<'adminRetryWebhookDelivery'>>;
  };
  storefrontKeys: {
    /** Creates a publishable key; the answer carries the full `pk_` key, shown this once. */
    create(
      body: RequestBody<'adminCreateStorefrontKey'>,
      options?: CallOptions,
    ): Promise<StorefrontKeyWithSecret>;
    list(
      query?: QueryParams<'adminListStorefrontKeys'>,
      options?: CallOptions,
    ): Promise<Paginated<ListItem<'adminListStorefrontKeys'>>>;
    listAll(
      query?: ListQuery<'adminListStorefrontKeys'>,
      options?: CallOptions,
    ): AsyncGenerator<ListItem<'adminListStorefrontKeys'>>;
    get(id: string, options?: CallOptions): Promise<StorefrontKey>;
    update(
      id: string,
      body: RequestBody<'adminUpdateStorefrontKey'>,
      options?: CallOptions,
    ): Promise<SuccessBody<'adminUpdateStorefrontKey'>>;
    /** Revokes the key: every process refuses it within KEY_CACHE_TTL. */
    revoke(id: string, options?: CallOptions): Promise<void>;
  };
}

/**
 * A client of the Admin API, authenticated with a staff session token. The token is a secret and
 * the Admin API sends no CORS headers: use it server-side or from the service's own origin. Reads
 * (GET) are retried on transient failures; writes are sent once.
 */
export function createAdminClient(options: AdminClientOptions): AdminClient {
  const { token } = options;
  if (token !== null && (typeof token !== 'string' || token === ''))
    throw new TypeError('token is required (st_…), or null before signing in');
  const transport = createTransport(
    options,
    adminOperations,
    (path): Record<string, string> =>
      token !== null && path.startsWith('/admin/') ? { authorization: `Bearer ${token}` } : {},
    ADMIN_PREFIX,
  );
  const call = <K extends AdminOperationId>(id: K, input?: RequestInput<K>) => transport.call(id, input);
  const none = async (promise: Promise<unknown>): Promise<void> => {
    await promise;
  };

  function list<K extends ListOperationId & AdminOperationId>(
    id: K,
    input?: ListInput<K>,
  ): AsyncGenerator<ListItem<K>, void, undefined> {
    return paginate((cursor) => {
      const query = { ...input?.query, ...(cursor === undefined ? {} : { cursor }) };
      return call(id, { ...input, query } as RequestInput<K>) as unknown as Promise<Paginated<ListItem<K>>>;
    });
  }

  return {
    request: (id, ...[input]) => call(id, input),
    list,
    products: {
      list: (query, options) => call('adminListProducts', { ...options, query }),
      listAll: (query, options) => list('adminListProducts', { ...options, query }),
      get: (id, options) => call('adminGetProduct', { ...options, path: { id } }),
      create: (body, options) => call('adminCreateProduct', { ...options, body }),
      update: (id, body, options) => call('adminUpdateProduct', { ...options, path: { id }, body }),
      delete: (id, options) => none(call('adminDeleteProduct', { ...options, path: { id } })),
      addVariant: (id, body, options) => call('adminCreateVariant', { ...options, path: { id }, body }),
      updateVariant: (id, body, options) => call('adminUpdateVariant', { ...options, path: { id }, body }),
    },
    orders: {
      list: (query, options) => call('adminListOrders', { ...options, query }),
      listAll: (query, options) => list('adminListOrders', { ...options, query }),
      get: (id, options) => call('adminGetOrder', { ...options, path: { id } }),
      refund: (id, body, options) => call('adminCreateRefund', { ...options, path: { id }, body }),
      fulfil: (id, body, options) => call('adminCreateFulfillment', { ...options, path: { id }, body }),
      updateFulfillment: (id, fulfillmentId, body, options) =>
        call('adminUpdateFulfillment', { ...options, path: { id, fulfillmentId }, body }),
      cancelFulfillment: (id, fulfillmentId, options) =>
        call('adminCancelFulfillment', { ...options, path: { id, fulfillmentId } }),
      cancel: (id, body, options) => call('adminCancelOrder', { ...options, path: { id }, body: body ?? {} }),
      createReturn: (id, body, options) => call('adminCreateReturn', { ...options, path: { id }, body }),
      previewReturn: (id, body, options) => call('adminPreviewReturn', { ...options, path: { id }, body }),
    },
    draftOrders: {
      create: (body, options) => call('adminCreateDraftOrder', { ...options, body }),
      list: (query, options) => call('adminListDraftOrders', { ...options, query }),
      listAll: (query, options) => list('adminListDraftOrders', { ...options, query }),
      get: (id, options) => call('adminGetDraftOrder', { ...options, path: { id } }),
      update: (id, body, options) => call('adminUpdateDraftOrder', { ...options, path: { id }, body }),
      delete: (id, options) => none(call('adminDeleteDraftOrder', { ...options, path: { id } })),
      invoice: (id, { idempotencyKey = randomUUID(), ...options } = {}) =>
        call('adminInvoiceDraftOrder', {
          ...options,
          path: { id },
          header: { 'Idempotency-Key': idempotencyKey },
        }),
      complete: (id, { idempotencyKey = randomUUID(), ...options } = {}) =>
        call('adminCompleteDraftOrder', {
          ...options,
          path: { id },
          body: { payment: 'manual' },
          header: { 'Idempotency-Key': idempotencyKey },
        }),
    },
    webhookEndpoints: {
      create: (body, options) => call('adminCreateWebhookEndpoint', { ...options, body }),
      list: (query, options) => call('adminListWebhookEndpoints', { ...options, query }),
      listAll: (query, options) => list('adminListWebhookEndpoints', { ...options, query }),
      get: (id, options) => call('adminGetWebhookEndpoint', { ...options, path: { id } }),
      update: (id, body, options) => call('adminUpdateWebhookEndpoint', { ...options, path: { id }, body }),
      delete: (id, options) => none(call('adminDeleteWebhookEndpoint', { ...options, path: { id } })),
      rotateSecret: (id, options) => call('adminRotateWebhookSecret', { ...options, path: { id } }),
      sendTest: (id, body, options) =>
        call('adminSendTestWebhook', { ...options, path: { id }, body: body ?? {} }),
      replay: (id, body, options) => call('adminReplayWebhooks', { ...options, path: { id }, body }),
    },
    webhookDeliveries: {
      list: (query, options) => call('adminListWebhookDeliveries', { ...options, query }),
      listAll: (query, options) => list('adminListWebhookDeliveries', { ...options, query }),
      get: (id, options) => call('adminGetWebhookDelivery', { ...options, path: { id } }),
      retry: (id, options) => call('adminRetryWebhookDelivery', { ...options, path: { id } }),
    },
    storefrontKeys: {
      create: (body, options) => call('adminCreateStorefrontKey', { ...options, body }),
      list: (query, options) => call('adminListStorefrontKeys', { ...options, query }),
      listAll: (query, options) => list('adminListStorefrontKeys', { ...options, query }),
      get: (id, options) => call('adminGetStorefrontKey', { ...options, path: { id } }),
      update: (id, body, options) => call('adminUpdateStorefrontKey', { ...options, path: { id }, body }),
      revoke: (id, options) => none(call('adminRevokeStorefrontKey', { ...options, path: { id } })),
    },
  };
}
