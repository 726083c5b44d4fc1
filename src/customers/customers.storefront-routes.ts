import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { reportIfOutage } from '../db/errors.ts';
import { IdParams, Page, PageQuery, problemResponses } from '../http/schemas.ts';
import { requireStorefront } from '../http/principals.ts';
import { buyerOrdersPage } from '../orders/buyers.service.ts';
import { StorefrontOrderSchema } from '../orders/orders.schemas.ts';
import { signInRateLimit } from '../ratelimit/ratelimit.hook.ts';
import { clientBucketOf, type RateLimiter } from '../ratelimit/ratelimit.limiter.ts';
import { requireCustomer } from './customers.auth.ts';
import {
  CustomerAddressInputSchema,
  CustomerAddressPatchSchema,
  CustomerAddressSchema,
  CustomerPatchSchema,
  CustomerSchema,
  CustomerSessionSchema,
  SignInBodySchema,
  VerifyBodySchema,
} from './customers.schemas.ts';
import {
  addAddress,
  changeAddress,
  customerView,
  endCustomerSession,
  getCustomer,
  listAddresses,
  removeAddress,
  updateProfile,
} from './customers.service.ts';
import { CustomerExportSchema, eraseCustomer, exportCustomer } from './privacy.service.ts';
import { requestCustomerCode, verifyCustomerCode, type CustomerSignInDeps } from './sign-in.service.ts';

export interface CustomerRouteDeps extends CustomerSignInDeps {
  rateLimiter: RateLimiter;
  /** Sign-in and verify requests per client IP, store and window (RATE_LIMIT_CUSTOMER_SIGN_IN). */
  signInLimit: number;
}

const TAGS = ['Storefront: customers'];
const SIGNED_IN = [{ publishableKey: [], customerToken: [] }];

/**
 * Customer accounts (decision `customer-accounts`): passwordless sign-in by an emailed code, then `me` with the `ct_`
 * token beside the publishable key. Nothing here is cached: every answer is `private, no-store`.
 */
export const customersStorefrontRoutes: FastifyPluginAsyncTypebox<{ deps: CustomerRouteDeps }> = async (
  app,
  { deps },
) => {
  const limitSignIn = signInRateLimit(
    deps.rateLimiter,
    deps.signInLimit,
    (request) => `customer-auth:${requireStorefront(request).storeId}`,
  );
  app.addHook('onSend', async (_request, reply, payload) => {
    void reply.header('cache-control', 'private, no-store');
    return payload;
  });
  // Codes are made after the answer: known and unknown addresses answer alike, at once.
  const codeRequests = new Set<Promise<void>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled([...codeRequests]);
  });

  app.post(
    '/customers/sign-in',
    {
      preHandler: limitSignIn,
      schema: {
        operationId: 'customerRequestSignInCode',
        'x-problems': ['rate_limited'],
        tags: TAGS,
        summary: 'Email a one-time sign-in code to a customer',
        description:
          'Always 202, at once, for any address: the store mails a 6-digit code, valid 10 minutes, that works once and only from the client (IP address) that asked; verifying it signs in, making the account on a first sign-in. Each client gets at least 2 codes an hour for an address whatever others ask (nobody can lock anyone out), at most 5, and an address at most 20 from all clients. At most RATE_LIMIT_CUSTOMER_SIGN_IN requests (sign-in and verify; by default RATE_LIMIT_SIGN_IN, 20) per client IP and store a minute (429).',
        body: SignInBodySchema,
        response: {
          202: Type.Object({ status: Type.Literal('sent') }, { title: 'CustomerSignInCodeSent' }),
          ...problemResponses,
        },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStorefront(request);
      const pending: Promise<void> = requestCustomerCode(deps, {
        storeId,
        email: request.body.email,
        client: clientBucketOf(request.ip),
      })
        .catch((error: unknown) => {
          if (!reportIfOutage(request.log, error))
            request.log.error({ err: error }, 'could not issue a customer sign-in code');
        })
        .finally(() => codeRequests.delete(pending));
      codeRequests.add(pending);
      return reply.code(202).send({ status: 'sent' as const });
    },
  );

  app.post(
    '/customers/verify',
    {
      preHandler: limitSignIn,
      schema: {
        operationId: 'customerVerifySignInCode',
        'x-problems': ['unauthorized', 'rate_limited'],
        tags: TAGS,
        summary: 'Exchange a sign-in code for a customer token',
        description:
          'A code works once, from the client that asked for it, for 10 minutes, with at most 5 guesses (however many arrive at once). The answer carries the `ct_` token, shown only here: it slides by CUSTOMER_SESSION_TTL on use within CUSTOMER_SESSION_MAX_AGE of the sign-in. A first sign-in makes the account (`customer.created`), or turns a guest who has bought with the email into one (`customer.updated`); their guest orders then show in `GET /customers/me/orders`.',
        body: VerifyBodySchema,
        response: { 200: CustomerSessionSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStorefront(request);
      const { email, code } = request.body;
      return verifyCustomerCode(deps, { storeId, email, client: clientBucketOf(request.ip) }, code);
    },
  );

  app.post(
    '/customers/sign-out',
    {
      schema: {
        operationId: 'customerSignOut',
        'x-problems': ['unauthorized'],
        tags: TAGS,
        summary: 'End the customer session (the token stops working)',
        security: SIGNED_IN,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const customer = await requireCustomer(deps, request);
      await endCustomerSession(deps, customer.storeId, customer.sessionId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/customers/me',
    {
      schema: {
        operationId: 'getCurrentCustomer',
        'x-problems': ['unauthorized'],
        tags: TAGS,
        summary: 'The signed-in customer',
        security: SIGNED_IN,
        response: { 200: CustomerSchema, ...problemResponses },
      },
    },
    async (request) => {
      const customer = await requireCustomer(deps, request);
      return customerView(await getCustomer(deps, customer.storeId, customer.customerId));
    },
  );

  app.patch(
    '/customers/me',
    {
      schema: {
        operationId: 'updateCurrentCustomer',
        'x-problems': ['unauthorized', 'validation_failed'],
        tags: TAGS,
        summary: "Change the customer's name, phone or marketing consent",
        description:
          'Fields left out stay; `null` clears a name or phone. `customer.updated` names what changed.',
        security: SIGNED_IN,
        body: CustomerPatchSchema,
        response: { 200: CustomerSchema, ...problemResponses },
      },
    },
    async (request) => {
      const customer = await requireCustomer(deps, request);
      return updateProfile(deps, customer.storeId, customer.customerId, request.body);
    },
  );

  app.delete(
    '/customers/me',
    {
      schema: {
        operationId: 'eraseCurrentCustomer',
        'x-problems': ['unauthorized'],
        tags: TAGS,
        summary: 'Erase the customer (their right to be forgotten)',
        description:
          'Deletes the account, its addresses and sessions (this token included), and scrubs the email, names, addresses and phone from their orders and the mail kept for them; order numbers, lines and amounts stay for the store’s accounts. `customer.deleted` carries the id alone. Cannot be undone.',
        security: SIGNED_IN,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const customer = await requireCustomer(deps, request);
      await eraseCustomer(deps, customer.storeId, customer.customerId, { kind: 'customer' });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/customers/me/export',
    {
      schema: {
        operationId: 'exportCurrentCustomer',
        'x-problems': ['unauthorized'],
        tags: TAGS,
        summary: 'Everything the store holds about the customer, as JSON',
        security: SIGNED_IN,
        response: { 200: CustomerExportSchema, ...problemResponses },
      },
    },
    async (request) => {
      const customer = await requireCustomer(deps, request);
      return exportCustomer(deps, customer.storeId, customer.customerId, { kind: 'customer' });
    },
  );

  app.get(
    '/customers/me/orders',
    {
      schema: {
        operationId: 'listCurrentCustomerOrders',
        'x-problems': ['unauthorized', 'validation_failed'],
        tags: TAGS,
        summary: "The customer's orders, newest first",
        description:
          'Orders placed signed in, and guest orders placed with the email before (the sign-in code proved it). Each is the buyer’s order view (`GET /orders/{id}`).',
        security: SIGNED_IN,
        querystring: PageQuery,
        response: { 200: Page(StorefrontOrderSchema), ...problemResponses },
      },
    },
    async (request) => {
      const customer = await requireCustomer(deps, request);
      return buyerOrdersPage(deps, customer.storeId, customer.customerId, request.query);
    },
  );

  app.get(
    '/customers/me/addresses',
    {
      schema: {
        operationId: 'listCustomerAddresses',
        'x-problems': ['unauthorized'],
        tags: TAGS,
        summary: "The customer's saved addresses (the default first)",
        security: SIGNED_IN,
        response: { 200: Page(CustomerAddressSchema), ...problemResponses },
      },
    },
    async (request) => {
      const customer = await requireCustomer(deps, request);
      return { items: await listAddresses(deps, customer.storeId, customer.customerId), nextCursor: null };
    },
  );

  app.post(
    '/customers/me/addresses',
    {
      schema: {
        operationId: 'createCustomerAddress',
        'x-problems': ['unauthorized', 'validation_failed', 'limit_reached'],
        tags: TAGS,
        summary: 'Save an address',
        description:
          'Checked by its country’s rules: a bad field is 400 with its pointer (`/postalCode`). The first address, or one sent with `isDefault: true`, becomes the default. At most 20 per customer.',
        security: SIGNED_IN,
        body: CustomerAddressInputSchema,
        response: { 201: CustomerAddressSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const customer = await requireCustomer(deps, request);
      const saved = await addAddress(deps, customer.storeId, customer.customerId, request.body);
      return reply.code(201).send(saved);
    },
  );

  app.patch(
    '/customers/me/addresses/:id',
    {
      schema: {
        operationId: 'updateCustomerAddress',
        'x-problems': ['unauthorized', 'not_found', 'validation_failed'],
        tags: TAGS,
        summary: 'Change a saved address, or make it the default',
        description: 'The fields sent replace the saved ones; the result is checked as a whole.',
        security: SIGNED_IN,
        params: IdParams,
        body: CustomerAddressPatchSchema,
        response: { 200: CustomerAddressSchema, ...problemResponses },
      },
    },
    async (request) => {
      const customer = await requireCustomer(deps, request);
      return changeAddress(deps, customer.storeId, customer.customerId, request.params.id, request.body);
    },
  );

  app.delete(
    '/customers/me/addresses/:id',
    {
      schema: {
        operationId: 'deleteCustomerAddress',
        'x-problems': ['unauthorized', 'not_found'],
        tags: TAGS,
        summary: 'Delete a saved address',
        description: 'Deleting the default leaves the customer without one.',
        security: SIGNED_IN,
        params: IdParams,
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const customer = await requireCustomer(deps, request);
      await removeAddress(deps, customer.storeId, customer.customerId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
