import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { logRequestFailure, toAppError } from '../http/errors.ts';
import { problemResponses } from '../http/schemas.ts';
import { AppError, notFound, validationFailed } from '../lib/errors.ts';
import type { Payments } from './payments.setup.ts';
import { ProviderError } from './provider.ts';
import {
  HOSTED_ASSET_CACHE_CONTROL,
  HOSTED_ASSETS,
  HOSTED_PAGE_PATH,
  INVALID_LINK_PAGE,
  OPEN_FROM_CHECKOUT_PAGE,
  pageHeaders,
  parseReturnUrl,
  renderMessagePage,
  renderNotConfirmable,
  renderPaymentPage,
  returnLink,
  type ReturnUrl,
} from './sandbox.hosted-page.ts';
import type { SandboxProvider } from './sandbox.provider.ts';
import { verifiedEvent, type OnProviderEvent } from './webhook-receiver.ts';

export interface PaymentRoutesDeps {
  payments: Payments;
  onEvent: OnProviderEvent;
}

/**
 * Provider-facing routes: the payment webhook receiver, and the sandbox provider's own confirm
 * endpoint and hosted payment page (which stand in for the provider's hosted fields during
 * development and tests).
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
            200: Type.Object(
              { received: Type.Boolean(), result: Type.String() },
              { title: 'PaymentWebhookReceipt' },
            ),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        if (request.params.provider !== provider.name)
          throw notFound(`No payment provider "${request.params.provider}" is configured.`);
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const event = verifiedEvent(provider, raw, request.headers, request.log);
        if (!event)
          throw new AppError(
            'invalid_signature',
            400,
            'The webhook signature is missing or does not match the body.',
          );
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
          'pm_card_visa succeeds, pm_card_declined fails (confirm again with another method), pm_card_delayed succeeds after SANDBOX_DELAY. The result reaches the service only through the signed webhook, which the sandbox keeps until it is delivered. A retry with the same card after the payment went through (succeeded or processing) answers 200 with its status now, and delivers its webhook at once if it was not yet; another card is then 409.',
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
          { title: 'SandboxConfirmRequest', additionalProperties: false },
        ),
        response: {
          200: Type.Object({ ref: Type.String(), status: Type.String() }, { title: 'SandboxConfirmResult' }),
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

  await app.register(async (scope) => sandboxHostedPage(scope, sandbox));
};

const PAYMENT_METHOD = Type.Union(
  [Type.Literal('pm_card_visa'), Type.Literal('pm_card_declined'), Type.Literal('pm_card_delayed')],
  { description: 'The test card: succeeds, is declined, or succeeds after SANDBOX_DELAY.' },
);
const CLIENT_SECRET = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'The `payment.clientSecret` of the checkout answer.',
});
const RETURN_URL = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'Where the shopper goes afterwards: an absolute http(s) URL, or a path on this server starting with one `/`. `payment_intent` and `redirect_status` are appended to its query.',
});
const REF = Type.Object({ ref: Type.String({ pattern: '^pi_sbx_[0-9A-Za-z]+$', maxLength: 200 }) });
const html = (description: string) => ({
  description,
  content: { 'text/html': { schema: Type.String() } },
});

/** What any hosted-page route can answer besides its own pages. */
const PAGE_ERRORS = {
  404: html('The ref and client secret match no sandbox payment (the page does not say which).'),
  409: html(
    'The payment can no longer be confirmed (it was canceled, or went through with another card); links back to return_url.',
  ),
  413: html('The form is larger than 8 KiB.'),
  415: html('The body is not application/x-www-form-urlencoded.'),
  500: html('An unexpected error; the request id identifies it in the logs.'),
};

/** Form bodies larger than this are 413: the page's form is three short fields. */
const FORM_BODY_LIMIT = 8 * 1024;

const invalidReturnUrl = (): AppError =>
  validationFailed(
    'return_url must be an absolute http(s) URL or a path starting with a single /, without spaces or backslashes.',
    [{ pointer: '/return_url', detail: 'is not an absolute http(s) URL or a path', in: 'body' }],
  );
const invalidLink = (): AppError => notFound('No sandbox payment with that ref and client secret.');

function sendPage(reply: FastifyReply, status: number, page: string, returnUrl: ReturnUrl | null) {
  return reply.code(status).headers(pageHeaders(returnUrl)).send(page);
}

/** Any failure of a hosted-page route as an HTML page (these routes answer browsers, not API clients). */
function sendErrorPage(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const validation = (error as Partial<FastifyError>).validation;
  // A ref that cannot be a sandbox ref is as invalid a link as an unknown one.
  if (validation && (error as FastifyError).validationContext === 'params') {
    return sendPage(reply, 404, INVALID_LINK_PAGE, null);
  }
  const failure = toAppError(error);
  logRequestFailure(request, error, failure);
  for (const [name, value] of Object.entries(failure.headers)) void reply.header(name, value);
  if (failure.status === 404) return sendPage(reply, 404, INVALID_LINK_PAGE, null);
  const fields = [...new Set((failure.errors ?? []).map((field) => field.pointer.slice(1)))];
  const text =
    failure.status === 400 && validation
      ? `The form field${fields.length === 1 ? '' : 's'} ${fields.join(', ')} ${fields.length === 1 ? 'is' : 'are'} missing or not valid.`
      : failure.status === 413
        ? 'The form is larger than this page accepts.'
        : failure.status === 415
          ? 'Send the form as application/x-www-form-urlencoded.'
          : failure.status >= 500
            ? 'Something went wrong on our side. Go back to the shop and look at your order before paying again.'
            : failure.detail;
  const title =
    failure.status < 500 ? 'This payment request is not valid' : 'The payment page is unavailable';
  return sendPage(reply, failure.status, renderMessagePage({ title, text }), null);
}

/**
 * The sandbox's hosted payment page: HTML forms in their own scope, whose only body type is a form
 * (parsed with URLSearchParams, at most 8 KiB; each field once), and whose errors are HTML pages.
 * The client secret travels in form bodies only, never in a URL (request logs carry URLs).
 */
async function sandboxHostedPage(scope: FastifyInstance, sandbox: SandboxProvider): Promise<void> {
  const pages = scope.withTypeProvider<TypeBoxTypeProvider>();
  pages.removeAllContentTypeParsers();
  pages.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => {
      const fields = new Map<string, string>();
      for (const [name, value] of new URLSearchParams(String(body))) {
        if (fields.has(name)) {
          done(validationFailed('A form field is sent more than once.'), undefined);
          return;
        }
        fields.set(name, value);
      }
      done(null, Object.fromEntries(fields));
    },
  );
  pages.setErrorHandler(sendErrorPage);

  for (const asset of HOSTED_ASSETS) {
    pages.get(asset.path, { schema: { hide: true } }, async (request, reply) => {
      void reply.headers({
        'content-type': asset.contentType,
        'cache-control': HOSTED_ASSET_CACHE_CONTROL,
        etag: asset.etag,
        'x-content-type-options': 'nosniff',
      });
      const ifNoneMatch = request.headers['if-none-match'];
      if (ifNoneMatch?.split(',').some((tag) => tag.trim() === asset.etag)) return reply.code(304).send();
      return reply.send(asset.body);
    });
  }

  pages.get(`${HOSTED_PAGE_PATH}/:ref`, { schema: { hide: true, params: REF } }, async (_request, reply) => {
    void reply.header('allow', 'POST');
    return sendPage(reply, 405, OPEN_FROM_CHECKOUT_PAGE, null);
  });

  pages.post(
    `${HOSTED_PAGE_PATH}/:ref`,
    {
      schema: {
        operationId: 'openSandboxPaymentPage',
        tags: ['Sandbox provider'],
        summary: 'Open the sandbox’s hosted payment page (an HTML form post from the shop’s checkout)',
        description:
          'The shop’s checkout submits a plain HTML form here (the client secret travels in the body, never in a URL). The page shows the amount and three test cards, and posts the choice to the hosted-confirm operation. Answers are HTML pages, also the errors. Opening it by address (GET) answers 405 with a short explanation.',
        consumes: ['application/x-www-form-urlencoded'],
        params: REF,
        body: Type.Object(
          { client_secret: CLIENT_SECRET, return_url: RETURN_URL },
          { title: 'SandboxPaymentPageForm' },
        ),
        response: {
          200: html('The payment page: amount, the test cards, Pay, and a link back to the shop.'),
          400: html(
            'A form field is missing, sent twice or not valid (e.g. return_url), or holds a NUL character.',
          ),
          ...PAGE_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const returnUrl = parseReturnUrl(request.body.return_url);
      if (!returnUrl) throw invalidReturnUrl();
      const { ref } = request.params;
      const intent = await sandbox.lookup(ref, request.body.client_secret);
      if (!intent) throw invalidLink();
      if (intent.status !== 'pending' && intent.status !== 'failed') {
        return sendPage(reply, 409, renderNotConfirmable(ref, intent.status, returnUrl), returnUrl);
      }
      const page = renderPaymentPage({ intent, clientSecret: request.body.client_secret, returnUrl });
      return sendPage(reply, 200, page, returnUrl);
    },
  );

  pages.post(
    `${HOSTED_PAGE_PATH}/:ref/hosted-confirm`,
    {
      schema: {
        operationId: 'confirmSandboxPaymentPage',
        tags: ['Sandbox provider'],
        summary: 'Pay on the sandbox’s hosted payment page (its form posts here)',
        description:
          'Confirms the payment with the chosen test card, as confirmSandboxPayment does (a second click with the same card after it went through is the same answer). Succeeded or processing: 303 to return_url with `payment_intent=<ref>&redirect_status=<succeeded|processing>` appended. Declined: the page again (402) with an alert, so the shopper can choose another card.',
        consumes: ['application/x-www-form-urlencoded'],
        'x-response-headers': { 303: ['Location'] },
        params: REF,
        body: Type.Object(
          { client_secret: CLIENT_SECRET, return_url: RETURN_URL, payment_method: PAYMENT_METHOD },
          { title: 'SandboxPaymentChoiceForm' },
        ),
        response: {
          303: { type: 'null', description: 'See Other: back to the shop (Location), with the outcome.' },
          400: html(
            'A form field is missing, sent twice or not valid (an unknown payment_method, a bad return_url, …).',
          ),
          402: html(
            'The card was declined: the page again, with an alert; the payment can be confirmed again.',
          ),
          ...PAGE_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const returnUrl = parseReturnUrl(request.body.return_url);
      if (!returnUrl) throw invalidReturnUrl();
      const { ref } = request.params;
      const { client_secret: clientSecret, payment_method: method } = request.body;
      let intent;
      try {
        intent = await sandbox.confirm(ref, clientSecret, method);
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        const current = await sandbox.lookup(ref, clientSecret);
        return sendPage(reply, 409, renderNotConfirmable(ref, current?.status, returnUrl), returnUrl);
      }
      if (!intent) throw invalidLink();
      if (intent.status === 'succeeded' || intent.status === 'processing') {
        return reply
          .headers({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' })
          .redirect(returnLink(returnUrl, ref, intent.status), 303);
      }
      const page = renderPaymentPage({ intent, clientSecret, returnUrl, method, declined: true });
      return sendPage(reply, 402, page, returnUrl);
    },
  );
}
