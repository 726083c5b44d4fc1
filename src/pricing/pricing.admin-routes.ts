import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { requireStaff } from '../http/principals.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import {
  CountryParams,
  DiscountBodySchema,
  DiscountSchema,
  TaxRateBodySchema,
  TaxRateSchema,
} from './pricing.schemas.ts';
import {
  createDiscount,
  listDiscounts,
  listTaxRates,
  removeDiscount,
  removeTaxRate,
  setTaxRate,
} from './pricing.service.ts';

const tags = ['Admin: discounts, tax and shipping'];

/** Discount codes, and tax and flat shipping per country. */
export const pricingAdminRoutes: FastifyPluginAsyncTypebox<{ deps: ServiceDeps }> = async (app, { deps }) => {
  app.post(
    '/discounts',
    {
      schema: {
        operationId: 'adminCreateDiscount',
        'x-problems': ['discount_exists'],
        tags,
        summary: 'Create a discount code',
        body: DiscountBodySchema,
        response: { 201: DiscountSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await createDiscount(deps, storeId, request.body));
    },
  );

  app.get(
    '/discounts',
    {
      schema: {
        operationId: 'adminListDiscounts',
        tags,
        summary: 'Discount codes',
        querystring: PageQuery,
        response: { 200: Page(DiscountSchema), ...problemResponses },
      },
    },
    async (request) => listDiscounts(deps, requireStaff(request).storeId, request.query),
  );

  app.delete(
    '/discounts/:id',
    {
      schema: {
        operationId: 'adminDeleteDiscount',
        tags,
        summary: 'Delete a discount code',
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      await removeDiscount(deps, storeId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/tax-rates/:country',
    {
      schema: {
        operationId: 'adminSetTaxRate',
        tags,
        summary: 'Set the tax rate of a country or region (and, legacy, a country’s flat shipping)',
        description:
          'Places without a rate pay no tax; a region’s rate (`US-CA`) beats its country’s for addresses in it. `shippingAmount` (countries only) sets the country’s default shipping method: see Shipping zones.',
        params: CountryParams,
        body: TaxRateBodySchema,
        response: { 200: TaxRateSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      return setTaxRate(deps, storeId, request.params.country, request.body);
    },
  );

  app.get(
    '/tax-rates',
    {
      schema: {
        operationId: 'adminListTaxRates',
        tags,
        summary: 'Tax rates by country and region, with each country’s legacy flat shipping',
        response: {
          200: Type.Object(
            { items: Type.Array(TaxRateSchema), nextCursor: Type.Null() },
            { title: 'TaxRateList' },
          ),
          ...problemResponses,
        },
      },
    },
    async (request) => ({ items: await listTaxRates(deps, requireStaff(request).storeId), nextCursor: null }),
  );

  app.delete(
    '/tax-rates/:country',
    {
      schema: {
        operationId: 'adminDeleteTaxRate',
        tags,
        summary: 'Remove a country’s or region’s rate (a country’s default shipping method goes with it)',
        params: CountryParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      await removeTaxRate(deps, storeId, request.params.country);
      return reply.code(204).send(null);
    },
  );
};
