import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { requireStaff } from '../http/principals.ts';
import { problemResponses } from '../http/schemas.ts';
import { TaxServiceBodySchema, TaxServiceSchema, TaxServiceWithSecretSchema } from './tax-service.schemas.ts';
import {
  getTaxService,
  putTaxService,
  removeTaxService,
  rotateTaxServiceSecret,
  type TaxServiceSettingsDeps,
} from './tax-service.settings.ts';

const tags = ['Admin: discounts, tax and shipping'];
const PATH = '/tax-service';

/**
 * The store's tax service (decision `tax-service`; docs/tax-service.md): owners and admins. The
 * signing secret appears only in the answers that make it (creation, rotation).
 */
export const taxServiceAdminRoutes: FastifyPluginAsyncTypebox<{ deps: TaxServiceSettingsDeps }> = async (
  app,
  { deps },
) => {
  app.put(
    PATH,
    {
      schema: {
        operationId: 'adminPutTaxService',
        tags,
        summary: 'Hand the store’s tax to an outside service (or change it)',
        description:
          'Creates the tax service (201, with its signing secret `whsec_…`, shown once) or changes its URL and `active` (200; the secret stays and is not shown). https only (plain http to loopback only with ALLOW_HTTP_WEBHOOKS=1); private, loopback, link-local, multicast and metadata addresses are refused, as for webhook endpoints. See docs/tax-service.md for what the service is sent and must answer.',
        body: TaxServiceBodySchema,
        response: { 200: TaxServiceSchema, 201: TaxServiceWithSecretSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const result = await putTaxService(deps, requireStaff(request).storeId, request.body);
      return reply.code(result.created ? 201 : 200).send(result.service);
    },
  );

  app.get(
    PATH,
    {
      schema: {
        operationId: 'adminGetTaxService',
        tags,
        summary: 'The store’s tax service (never its secret)',
        response: { 200: TaxServiceSchema, ...problemResponses },
      },
    },
    async (request) => getTaxService(deps, requireStaff(request).storeId),
  );

  app.delete(
    PATH,
    {
      schema: {
        operationId: 'adminDeleteTaxService',
        tags,
        summary: 'Remove the tax service: the built-in rates apply again',
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      await removeTaxService(deps, requireStaff(request).storeId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${PATH}/rotate-secret`,
    {
      schema: {
        operationId: 'adminRotateTaxServiceSecret',
        tags,
        summary: 'Make a new signing secret for the tax service',
        description:
          'Returns the new secret (shown once). The old one stops signing at once: let the service accept both while it switches.',
        response: { 200: TaxServiceWithSecretSchema, ...problemResponses },
      },
    },
    async (request) => rotateTaxServiceSecret(deps, requireStaff(request).storeId),
  );
};
