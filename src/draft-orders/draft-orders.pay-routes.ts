import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { contentSecurityPolicy, pageSecurityHeaders } from '../http/security-headers.ts';
import { PAY_LINK_PATH } from './pay-links.ts';
import { payPage, type PayPageDeps } from './pay-page.ts';

const CSP = contentSecurityPolicy({ 'default-src': ["'none'"], 'style-src': ["'self'"] });

/** The page a draft order's pay link opens (decision `draft-order-pay-link`): HTML for the customer's browser. */
export const draftOrderPayRoutes: FastifyPluginAsyncTypebox<{ deps: PayPageDeps }> = async (
  app,
  { deps },
) => {
  app.get(
    `${PAY_LINK_PATH}/:orderId`,
    {
      // A page for the customer's browser, opened from the invoice mail: HTML, not part of the API's
      // document (as the sandbox's page opened by address is not), decision `draft-order-pay-link`.
      schema: {
        hide: true,
        params: Type.Object({ orderId: Type.String({ maxLength: 64 }) }),
        querystring: Type.Object({
          token: Type.Optional(Type.String({ maxLength: 200 })),
          payment_intent: Type.Optional(Type.String({ maxLength: 200 })),
          redirect_status: Type.Optional(Type.String({ maxLength: 40 })),
        }),
      },
    },
    async (request, reply) => {
      const { token = '', redirect_status: status } = request.query;
      const page = await payPage(deps, request.params.orderId, { token, redirect_status: status });
      return reply
        .code(page.status)
        .headers({
          ...pageSecurityHeaders(CSP),
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
        })
        .send(page.html);
    },
  );
};
