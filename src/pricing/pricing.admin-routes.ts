import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { requireStaff } from '../http/principals.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import {
  CountryParams,
  DiscountBodySchema,
  DiscountSchema,
  TaxClassBodySchema,
  TaxClassParams,
  TaxClassSchema,
  TaxRateBodySchema,
  TaxRateSchema,
} from './pricing.schemas.ts';
import { createTaxClass, listTaxClasses, removeTaxClass } from './tax-classes.service.ts';
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

  app.post(
    '/tax-classes',
    {
      schema: {
        operationId: 'adminCreateTaxClass',
        'x-problems': ['tax_class_exists'],
        tags,
        summary: 'Add a tax class (`reduced`, `zero`, …)',
        description:
          'Every store has `standard`. A class’s rate in an area is set with PUT /tax-rates/{country} `classRates`; an area without one taxes the class at its standard rate.',
        body: TaxClassBodySchema,
        response: { 201: TaxClassSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      return reply.code(201).send(await createTaxClass(deps, storeId, request.body));
    },
  );

  app.get(
    '/tax-classes',
    {
      schema: {
        operationId: 'adminListTaxClasses',
        tags,
        summary: 'Tax classes, `standard` first',
        response: {
          200: Type.Object(
            { items: Type.Array(TaxClassSchema), nextCursor: Type.Null() },
            { title: 'TaxClassList' },
          ),
          ...problemResponses,
        },
      },
    },
    async (request) => ({
      items: await listTaxClasses(deps, requireStaff(request).storeId),
      nextCursor: null,
    }),
  );

  app.delete(
    '/tax-classes/:code',
    {
      schema: {
        operationId: 'adminDeleteTaxClass',
        'x-problems': ['tax_class_in_use'],
        tags,
        summary: 'Delete a tax class no product, variant, shipping method or rate names',
        params: TaxClassParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      await removeTaxClass(deps, storeId, request.params.code);
      return reply.code(204).send(null);
    },
  );
};
