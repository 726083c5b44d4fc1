import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { problemResponses } from '../http/schemas.ts';
import { AppError, notFound } from '../lib/errors.ts';
import type { Log } from '../lib/log.ts';
import type { Payments } from './payments.setup.ts';
import { ProviderError, WebhookSignatureError, type ProviderEvent } from './provider.ts';

export interface PaymentRoutesDeps {
  payments: Payments;
  /**
   * What a verified provider event does (orders registers it at the composition, so payments never
   * imports orders). Returns how it was applied, e.g. `applied`, `duplicate`, `ignored`.
   */
  onEvent: (event: ProviderEvent, log: Log) => Promise<string>;
}

/**
 * Provider-facing routes: the payment webhook receiver, and the sandbox provider's own confirm
 * endpoint (which stands in for the provider's hosted fields during development and tests).
 */
export const paymentsRoutes: FastifyPluginAsyncTypebox<{ deps: PaymentRoutesDeps }> = async (
  app,
  { deps },
) => {
  const { provider, sandbox } = deps.payments;
  await app.register(async (scope) => {
    const webhooks = scope.withTypeProvider<TypeBoxTypeProvider>();
    // The signature covers the exact bytes: keep the raw body, parse nothing before verifying.
    webhooks.removeAllContentTypeParsers();
    webhooks.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 256 * 1024 }, (_request, body, done) =>
      done(null, body),
    );

    webhooks.post(
      '/payments/webhooks/:provider',
      {
        schema: {
          operationId: 'receivePaymentWebhook',
          'x-problems': ['invalid_signature', 'not_found'],
          tags: ['Payments'],
          summary: 'Payment provider webhooks',
          description:
            'Verified against the provider signature on the raw body first (400 otherwise, nothing stored); deduplicated on the provider event id in the same transaction as the effect.',
          params: Type.Object({ provider: Type.String({ maxLength: 40 }) }),
          response: {
            200: Type.Object({ received: Type.Boolean(), result: Type.String() }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        if (request.params.provider !== provider.name)
          throw notFound(`No payment provider "${request.params.provider}" is configured.`);
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        let event;
        try {
          event = provider.verifyWebhook(raw, request.headers);
        } catch (error) {
          if (error instanceof WebhookSignatureError || error instanceof SyntaxError) {
            request.log.warn({ reason: error.message }, 'rejected a payment webhook');
            throw new AppError(
              'invalid_signature',
              400,
              'The webhook signature is missing or does not match the body.',
            );
          }
          throw error;
        }
        return { received: true, result: await deps.onEvent(event, request.log) };
      },
    );
  });

  if (!sandbox) return;

  app.post(
    '/sandbox/v1/payments/:ref/confirm',
    {
      schema: {
        operationId: 'confirmSandboxPayment',
        'x-problems': ['validation_failed', 'not_found', 'payment_not_confirmable'],
        tags: ['Sandbox provider'],
        summary: 'Confirm a sandbox payment (stands in for the provider’s hosted fields)',
        description:
          'pm_card_visa succeeds, pm_card_declined fails (confirm again with another method), pm_card_delayed succeeds after SANDBOX_DELAY. The result reaches the service only through the signed webhook.',
        params: Type.Object({ ref: Type.String({ pattern: '^pi_sbx_[0-9A-Za-z]+$' }) }),
        body: Type.Object(
          {
            clientSecret: Type.String({ maxLength: 200 }),
            paymentMethod: Type.Union([
              Type.Literal('pm_card_visa'),
              Type.Literal('pm_card_declined'),
              Type.Literal('pm_card_delayed'),
            ]),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ ref: Type.String(), status: Type.String() }),
          ...problemResponses,
        },
      },
    },
    async (request) => {
      try {
        const result = await sandbox.confirm(
          request.params.ref,
          request.body.clientSecret,
          request.body.paymentMethod,
        );
        if (!result) throw notFound('No sandbox payment with that ref and client secret.');
        return { ref: request.params.ref, status: result.status };
      } catch (error) {
        if (error instanceof ProviderError) throw new AppError('payment_not_confirmable', 409, error.message);
        throw error;
      }
    },
  );
};
