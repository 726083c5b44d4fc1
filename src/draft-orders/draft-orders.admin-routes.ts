import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { requireStaff } from '../http/principals.ts';
import type { ProblemTitle } from '../http/problems.ts';
import { IdParams, Page, problemResponses } from '../http/schemas.ts';
import type { DraftOrdersDeps } from './draft-orders.deps.ts';
import { placeDraft, placedDraftOfKey, type Placing } from './draft-orders.placing.ts';
import {
  CompleteDraftBodySchema,
  DraftOrderBodySchema,
  DraftOrderListItemSchema,
  DraftOrderPatchSchema,
  DraftOrderPlacedSchema,
  DraftOrderSchema,
  DraftOrdersQuerySchema,
} from './draft-orders.schemas.ts';
import { createDraft, deleteDraft, getDraft, listDrafts, updateDraftOrder } from './draft-orders.service.ts';

const tags = ['Admin: draft orders'];

const IDEMPOTENCY_KEY = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ description: 'A UUID; required.' })),
});

/** What an invoice and a completion may answer besides their draft (the invoice adds the provider's failure). */
const PLACING_PROBLEMS: ProblemTitle[] = [
  'not_found',
  'validation_failed',
  'insufficient_stock',
  'shipping_unavailable',
  'shipping_method_unavailable',
  'draft_order_not_open',
  'draft_order_changed',
  'tax_unavailable',
  'idempotency_key_required',
  'idempotency_key_reused',
  'idempotency_in_progress',
];

/** An idempotent placement of a draft (decision `draft-orders`): its route name and its recovery by the order's key. */
function placing(deps: DraftOrdersDeps, how: Placing) {
  return {
    idempotent: {
      name: how === 'invoice' ? 'draft-order-invoice' : 'draft-order-complete',
      storeId: (request: Parameters<typeof requireStaff>[0]) => requireStaff(request).storeId,
      recover: async (request: Parameters<typeof requireStaff>[0], key: string) => {
        const made = await placedDraftOfKey(deps, requireStaff(request).storeId, key, how);
        return made ? { status: 200, body: made } : null;
      },
    },
  };
}

/** Draft orders (decision `draft-orders`): staff put an order together, invoice it or complete it. */
export const draftOrdersAdminRoutes: FastifyPluginAsyncTypebox<{ deps: DraftOrdersDeps }> = async (
  app,
  { deps },
) => {
  app.post(
    '/draft-orders',
    {
      schema: {
        operationId: 'adminCreateDraftOrder',
        'x-problems': ['validation_failed'],
        tags,
        summary: 'Create a draft order',
        description:
          'Priced at once by checkout’s quote (the customer’s groups’ price lists, the market of the shipping address, tax, automatic promotions), with staff’s prices, custom items, custom shipping and discount. Records `draft_order.created`.',
        body: DraftOrderBodySchema,
        response: { 201: DraftOrderSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await createDraft(deps, storeId, request.body));
    },
  );

  app.get(
    '/draft-orders',
    {
      schema: {
        operationId: 'adminListDraftOrders',
        'x-problems': ['validation_failed'],
        tags,
        summary: 'Draft orders, newest first',
        querystring: DraftOrdersQuerySchema,
        response: { 200: Page(DraftOrderListItemSchema), ...problemResponses },
      },
    },
    async (request) => listDrafts(deps, requireStaff(request).storeId, request.query),
  );

  app.get(
    '/draft-orders/:id',
    {
      schema: {
        operationId: 'adminGetDraftOrder',
        'x-problems': ['not_found', 'tax_unavailable'],
        tags,
        summary: 'A draft order with its live totals',
        description:
          'An open draft is priced now. A draft that made its order (invoiced or completed) shows that order’s amounts: its lines, discounts, tax, shipping and totals as charged.',
        params: IdParams,
        response: { 200: DraftOrderSchema, ...problemResponses },
      },
    },
    async (request) => getDraft(deps, requireStaff(request).storeId, request.params.id),
  );

  app.patch(
    '/draft-orders/:id',
    {
      schema: {
        operationId: 'adminUpdateDraftOrder',
        'x-problems': ['not_found', 'validation_failed', 'draft_order_not_open'],
        tags,
        summary: 'Change an open draft order',
        params: IdParams,
        body: DraftOrderPatchSchema,
        response: { 200: DraftOrderSchema, ...problemResponses },
      },
    },
    async (request) => updateDraftOrder(deps, requireStaff(request).storeId, request.params.id, request.body),
  );

  app.delete(
    '/draft-orders/:id',
    {
      schema: {
        operationId: 'adminDeleteDraftOrder',
        'x-problems': ['not_found', 'draft_order_not_open'],
        tags,
        summary: 'Delete an open draft order',
        description:
          'A draft that made an order stays, as its record. Records `draft_order.updated` with status `deleted`.',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      await deleteDraft(deps, requireStaff(request).storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/draft-orders/:id/invoice',
    {
      schema: {
        operationId: 'adminInvoiceDraftOrder',
        'x-problems': [...PLACING_PROBLEMS, 'provider_unavailable'],
        tags,
        summary: 'Invoice a draft order: a pending order holding stock, and a mail with the link to pay it',
        description:
          'Makes the draft a pending order (`source: "draft"`) that holds its stock until the draft’s `reserveUntil` (default 3 days after the invoice), creates its payment at the store’s provider, and mails the customer a link to pay it on the provider’s hosted page. The provider’s signed webhook makes it paid; at expiry its stock goes back. Idempotent by `Idempotency-Key`; invoicing an invoiced draft again answers with its order. Records `draft_order.updated` (`invoiced`).',
        params: IdParams,
        headers: IDEMPOTENCY_KEY,
        'x-response-headers': { 200: ['Idempotent-Replayed'] },
        response: { 200: DraftOrderPlacedSchema, ...problemResponses },
      },
      config: placing(deps, 'invoice'),
    },
    async (request) =>
      placeDraft(deps, requireStaff(request).storeId, request.params.id, 'invoice', request.idempotencyKey),
  );

  app.post(
    '/draft-orders/:id/complete',
    {
      schema: {
        operationId: 'adminCompleteDraftOrder',
        'x-problems': [...PLACING_PROBLEMS, 'draft_order_expired'],
        tags,
        summary: 'Complete a draft order paid outside (bank transfer, cash): a paid order at once',
        description:
          'Makes the draft a paid order (`source: "draft"`) with a payment `{provider: "manual", status: "succeeded"}`: its stock sold, `order.created` and `order.paid` recorded and the confirmation mailed, as for any paid order. Completing an invoiced draft marks the pending order its invoice made paid the same way (its held stock sold, the provider’s intent cancelled); when that order expired or was cancelled it is 409 `draft_order_expired`. Idempotent by `Idempotency-Key`, and a draft makes one order at most: completing it again answers with that order. Records `draft_order.completed`.',
        params: IdParams,
        headers: IDEMPOTENCY_KEY,
        'x-response-headers': { 200: ['Idempotent-Replayed'] },
        body: CompleteDraftBodySchema,
        response: { 200: DraftOrderPlacedSchema, ...problemResponses },
      },
      config: placing(deps, 'manual'),
    },
    async (request) =>
      placeDraft(deps, requireStaff(request).storeId, request.params.id, 'manual', request.idempotencyKey),
  );
};
