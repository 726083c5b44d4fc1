import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ServiceDeps } from '../db/service-deps.ts';
import { requireStaff } from '../http/principals.ts';
import { IdParams, Page, problemResponses } from '../http/schemas.ts';
import {
  GiftCardCreateSchema,
  GiftCardDetailSchema,
  GiftCardListQuery,
  GiftCardPatchSchema,
  GiftCardSchema,
  IssuedGiftCardSchema,
} from './gift-cards.schemas.ts';
import { getGiftCard, issueGiftCard, listGiftCards, updateGiftCard } from './gift-cards.service.ts';

const tags = ['Admin: gift cards'];

/** Gift cards (decisions `gift-card-codes`, `gift-card-ledger`): issued by hand, read with their ledger, changed. */
export const giftCardsAdminRoutes: FastifyPluginAsyncTypebox<{ deps: ServiceDeps }> = async (
  app,
  { deps },
) => {
  app.post(
    '/gift-cards',
    {
      schema: {
        operationId: 'adminIssueGiftCard',
        'x-problems': ['validation_failed'],
        tags,
        summary: 'Issue a gift card',
        description:
          'A card of `initialAmount` (minor units) in `currency`, with a fresh code `XXXX-XXXX-XXXX-XXXX` (16 characters without look-alikes: no 0, O, 1 or I). The code is in this answer only: the service keeps its SHA-256 and last 4 characters. `customerId` must be a customer of the store (400 at `/customerId`), `expiresAt` in the future. Records `gift_card.issued`.',
        body: GiftCardCreateSchema,
        response: { 201: IssuedGiftCardSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await issueGiftCard(deps, storeId, request.body));
    },
  );

  app.get(
    '/gift-cards',
    {
      schema: {
        operationId: 'adminListGiftCards',
        'x-problems': ['validation_failed'],
        tags,
        summary: 'Gift cards, newest first',
        description: '`last4` finds the cards whose code ends so (what a buyer reads from their card).',
        querystring: GiftCardListQuery,
        response: { 200: Page(GiftCardSchema), ...problemResponses },
      },
    },
    async (request) => listGiftCards(deps, requireStaff(request).storeId, request.query),
  );

  app.get(
    '/gift-cards/:id',
    {
      schema: {
        operationId: 'adminGetGiftCard',
        'x-problems': ['not_found'],
        tags,
        summary: 'A gift card with its balance history',
        params: IdParams,
        response: { 200: GiftCardDetailSchema, ...problemResponses },
      },
    },
    async (request) => getGiftCard(deps, requireStaff(request).storeId, request.params.id),
  );

  app.patch(
    '/gift-cards/:id',
    {
      schema: {
        operationId: 'adminUpdateGiftCard',
        'x-problems': ['not_found', 'validation_failed', 'gift_card_balance_too_low'],
        tags,
        summary: 'Change a gift card, or adjust its balance',
        description:
          '`note`, `expiresAt`, `customerId` (null: nobody’s) and `disabled` (a disabled card pays nothing). `adjustment` adds its `amount` (negative: takes it off) to the balance, kept in the ledger with its `reason`; the balance never goes below 0 (409 `gift_card_balance_too_low`). Records `gift_card.updated` naming what changed.',
        params: IdParams,
        body: GiftCardPatchSchema,
        response: { 200: GiftCardDetailSchema, ...problemResponses },
      },
    },
    async (request) => updateGiftCard(deps, requireStaff(request).storeId, request.params.id, request.body),
  );
};
