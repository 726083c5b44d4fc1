import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { AppContext } from '../http/context.ts';
import { IdParams, Page, PageQuery, PageQueryWith, problemResponses } from '../http/schemas.ts';
import { isCountryCode } from '../lib/country.ts';
import { normalizeDiscountCode } from './checkout.service.ts';
import {
  AdminOrderSchema,
  DiscountSchema,
  OrderStatusSchema,
  RefundSchema,
  TaxRateSchema,
} from './orders.schemas.ts';
import { adminOrder, orderView, refundView } from './orders.service.ts';
import type { DiscountRow } from './orders.tables.ts';
import { requestRefund } from './refunds.service.ts';
import { AppError, notFound, validationFailed } from '../lib/errors.ts';
import { pageSize } from '../lib/cursors.ts';
import { byCreated } from '../db/keyset.ts';
import { requireStaff } from '../http/principals.ts';

const orderTags = ['Admin: orders'];
const pricingTags = ['Admin: discounts, tax and shipping'];

const discountView = (row: DiscountRow) => ({
  id: row.id,
  code: row.code,
  kind: row.kind,
  value: row.value,
  startsAt: row.starts_at?.toISOString() ?? null,
  endsAt: row.ends_at?.toISOString() ?? null,
  usageLimit: row.usage_limit,
  usedCount: row.used_count,
  createdAt: row.created_at.toISOString(),
});

export const ordersAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/orders',
    {
      schema: {
        tags: orderTags,
        summary: 'Orders, newest first',
        querystring: PageQueryWith({ status: Type.Optional(OrderStatusSchema) }),
        response: { 200: Page(AdminOrderSchema), ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      const size = pageSize(request.query.limit);
      const scope = `${storeId}:admin-orders:${request.query.status ?? '*'}`;
      let query = ctx.db
        .selectFrom('orders')
        .select('id')
        .select('created_at')
        .where('store_id', '=', storeId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(size + 1);
      if (request.query.status) query = query.where('status', '=', request.query.status);
      if (request.query.cursor) {
        const [createdAt, id] = ctx.cursors.decode(scope, request.query.cursor);
        // Descending keyset: rows before the position.
        query = query.where((eb) =>
          eb.or([
            eb('created_at', '<', new Date(createdAt!)),
            eb.and([eb('created_at', '=', new Date(createdAt!)), eb('id', '<', String(id))]),
          ]),
        );
      }
      const rows = await query.execute();
      const page = ctx.cursors.page(
        scope,
        rows,
        size,
        (row) => [row.created_at.toISOString(), row.id],
        (row) => row.id,
      );
      return {
        items: await Promise.all(page.items.map((id) => adminOrder(ctx.db, storeId, id))),
        nextCursor: page.nextCursor,
      };
    },
  );

  app.get(
    '/orders/:id',
    {
      schema: {
        tags: orderTags,
        summary: 'One order with lines, payments and refunds',
        params: IdParams,
        response: { 200: AdminOrderSchema, ...problemResponses },
      },
    },
    async (request) => adminOrder(ctx.db, requireStaff(request).storeId, request.params.id),
  );

  app.post(
    '/orders/:id/refunds',
    {
      schema: {
        tags: orderTags,
        summary: 'Refund part or all of a paid order',
        description:
          'At most the paid total minus refunds made or pending. 202: the refund settles when the provider confirms it (order.refunded, refund notice mail).',
        params: IdParams,
        body: Type.Object(
          {
            amount: Type.Integer({ minimum: 1, description: 'Minor units.' }),
            reason: Type.Optional(Type.String({ maxLength: 500 })),
          },
          { additionalProperties: false },
        ),
        response: {
          202: Type.Object({
            refund: RefundSchema,
            order: Type.Object({ id: Type.String(), number: Type.Integer(), status: OrderStatusSchema }),
          }),
          ...problemResponses,
        },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const { refund, order } = await requestRefund(
        { db: ctx.db, clock: ctx.clock, provider: ctx.payments, log: request.log, signals: ctx.signals },
        storeId,
        request.params.id,
        request.body.amount,
      );
      const view = orderView(order, []);
      return reply.code(202).send({
        refund: refundView(refund, order.currency),
        order: { id: view.id, number: view.number, status: view.status },
      });
    },
  );

  app.post(
    '/discounts',
    {
      schema: {
        tags: pricingTags,
        summary: 'Create a discount code',
        body: Type.Object(
          {
            code: Type.String({
              pattern: '^[A-Za-z0-9_-]{1,64}$',
              description: 'Case-insensitive; stored upper case.',
            }),
            kind: Type.Union([Type.Literal('percent'), Type.Literal('fixed')]),
            value: Type.Integer({ minimum: 1, maximum: 1_000_000_000_00 }),
            startsAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
            endsAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
            usageLimit: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: { 201: DiscountSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const body = request.body;
      if (body.kind === 'percent' && body.value > 100)
        throw validationFailed('A percent discount is 1 to 100.', [
          { pointer: '/value', detail: 'must be 1 to 100 for a percent discount' },
        ]);
      if (body.startsAt && body.endsAt && Date.parse(body.endsAt) <= Date.parse(body.startsAt)) {
        throw validationFailed('endsAt must be after startsAt.', [
          { pointer: '/endsAt', detail: 'must be after startsAt' },
        ]);
      }
      const row = await ctx.db
        .insertInto('discounts')
        .values({
          store_id: storeId,
          code: normalizeDiscountCode(body.code),
          kind: body.kind,
          value: body.value,
          starts_at: body.startsAt ?? null,
          ends_at: body.endsAt ?? null,
          usage_limit: body.usageLimit ?? null,
        })
        .onConflict((oc) => oc.columns(['store_id', 'code']).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (!row)
        throw new AppError(
          'discount_exists',
          409,
          `The code ${normalizeDiscountCode(body.code)} exists already.`,
        );
      return reply.code(201).send(discountView(row));
    },
  );

  app.get(
    '/discounts',
    {
      schema: {
        tags: pricingTags,
        summary: 'Discount codes',
        querystring: PageQuery,
        response: { 200: Page(DiscountSchema), ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      const query = ctx.db.selectFrom('discounts').selectAll().where('store_id', '=', storeId);
      return byCreated(ctx.cursors, `${storeId}:discounts`, query, request.query, discountView);
    },
  );

  app.delete(
    '/discounts/:id',
    {
      schema: {
        tags: pricingTags,
        summary: 'Delete a discount code',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const deleted = await ctx.db
        .deleteFrom('discounts')
        .where('store_id', '=', storeId)
        .where('id', '=', request.params.id)
        .returning('id')
        .executeTakeFirst();
      if (!deleted) throw notFound('No discount with that id in this store.');
      return reply.code(204).send(null);
    },
  );

  const CountryParams = Type.Object({ country: Type.String({ pattern: '^[A-Za-z]{2}$' }) });
  const taxView = (row: {
    country: string;
    tax_rate_bps: number;
    shipping_amount: number;
    updated_at: Date;
  }) => ({
    country: row.country.trim(),
    taxRateBps: row.tax_rate_bps,
    shippingAmount: row.shipping_amount,
    updatedAt: row.updated_at.toISOString(),
  });

  app.put(
    '/tax-rates/:country',
    {
      schema: {
        tags: pricingTags,
        summary: 'Set the tax rate and flat shipping for buyers in a country',
        description: 'Countries without a row pay no tax and no shipping.',
        params: CountryParams,
        body: Type.Object(
          {
            taxRateBps: Type.Integer({ minimum: 0, maximum: 10_000 }),
            shippingAmount: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: TaxRateSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const country = request.params.country.toUpperCase();
      if (!isCountryCode(country))
        throw validationFailed('Unknown country code.', [
          { pointer: '/country', detail: 'must be an ISO 3166-1 alpha-2 code', in: 'path' },
        ]);
      const values = {
        tax_rate_bps: request.body.taxRateBps,
        shipping_amount: request.body.shippingAmount,
        updated_at: ctx.clock.now(),
      };
      const row = await ctx.db
        .insertInto('tax_rates')
        .values({ store_id: storeId, country, ...values })
        .onConflict((oc) => oc.columns(['store_id', 'country']).doUpdateSet(values))
        .returningAll()
        .executeTakeFirstOrThrow();
      return taxView(row);
    },
  );

  app.get(
    '/tax-rates',
    {
      schema: {
        tags: pricingTags,
        summary: 'Tax and shipping rates by country',
        response: {
          200: Type.Object({ items: Type.Array(TaxRateSchema), nextCursor: Type.Null() }),
          ...problemResponses,
        },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      const rows = await ctx.db
        .selectFrom('tax_rates')
        .selectAll()
        .where('store_id', '=', storeId)
        .orderBy('country')
        .execute();
      return { items: rows.map(taxView), nextCursor: null };
    },
  );

  app.delete(
    '/tax-rates/:country',
    {
      schema: {
        tags: pricingTags,
        summary: 'Remove a country rate',
        params: CountryParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request, 'owner', 'admin');
      const deleted = await ctx.db
        .deleteFrom('tax_rates')
        .where('store_id', '=', storeId)
        .where('country', '=', request.params.country.toUpperCase())
        .returning('country')
        .executeTakeFirst();
      if (!deleted) throw notFound('No rate for that country.');
      return reply.code(204).send(null);
    },
  );
};
