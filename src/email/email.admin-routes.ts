import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { problemResponses } from '../http/schemas.ts';
import { RegisterDomainBody, SenderStateSchema, SendingDomainSchema } from './email.schemas.ts';
import {
  getSendingDomain,
  registerSendingDomain,
  removeSendingDomain,
  senderState,
  verifySendingDomainNow,
} from './email.service.ts';
import type { EmailDeps } from './email.deps.ts';
import { requireStaff } from '../http/principals.ts';
import { storeActionRateLimit } from '../ratelimit/ratelimit.hook.ts';
import type { RateLimiter } from '../ratelimit/ratelimit.limiter.ts';

const tags = ['Admin: email sender'];
const DOMAIN_PATH = '/email/sending-domain';

export interface EmailRouteDeps extends EmailDeps {
  rateLimiter: RateLimiter;
  /** Verify-now requests per store and window. */
  verifyLimit: number;
}

/** The store's email sender identity (spec 2.14, 2.15, 4.3; decisions `platform-and-store-mail` and `sending-domain-verification`): owners and admins. */
export const emailAdminRoutes: FastifyPluginAsyncTypebox<{ deps: EmailRouteDeps }> = async (
  app,
  { deps },
) => {
  const limitVerify = storeActionRateLimit(deps.rateLimiter, deps.verifyLimit, {
    name: 'verify-sending-domain',
    what: 'verify-now requests',
  });
  app.get(
    '/email/sender',
    {
      schema: {
        operationId: 'adminGetSenderState',
        tags,
        summary: 'Who store mail is sent from',
        description:
          'platform-fallback: the platform no-reply address with the store name; custom-domain: <fromLocalPart>@<domain> once the domain is verified. Reply-To is the store reply-to in both modes.',
        response: { 200: SenderStateSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      return senderState(deps, storeId);
    },
  );

  app.post(
    DOMAIN_PATH,
    {
      schema: {
        operationId: 'adminRegisterSendingDomain',
        'x-problems': ['domain_unavailable', 'sending_domain_exists'],
        tags,
        summary: 'Register the sending domain',
        description:
          'Returns the five DNS records to publish. One domain per store (409 sending_domain_exists); a domain belongs to one store only (409 domain_unavailable).',
        body: RegisterDomainBody,
        response: { 201: SendingDomainSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      const domain = await registerSendingDomain(deps, storeId, request.body);
      request.log.info({ storeId, domain: domain.domain }, 'sending domain registered');
      return reply.code(201).send(domain);
    },
  );

  app.get(
    DOMAIN_PATH,
    {
      schema: {
        operationId: 'adminGetSendingDomain',
        'x-problems': ['not_found'],
        tags,
        summary: 'The sending domain and the status of each DNS record',
        response: { 200: SendingDomainSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      return getSendingDomain(deps, storeId);
    },
  );

  app.post(
    `${DOMAIN_PATH}/verify`,
    {
      schema: {
        operationId: 'adminVerifySendingDomain',
        'x-problems': ['not_found', 'rate_limited'],
        tags,
        summary: 'Check the DNS records now',
        description:
          'Runs the periodic check at once and returns the domain with the status of each record. From pending or failed it starts a new verification window; it never moves `releaseAt`. At most RATE_LIMIT_DOMAIN_VERIFY (5) requests per store and minute (429 rate_limited with Retry-After).',
        response: { 200: SendingDomainSchema, ...problemResponses },
      },
      preHandler: async (request) => limitVerify(requireStaff(request).storeId),
    },
    async (request) => {
      const { storeId } = requireStaff(request);
      return verifySendingDomainNow({ ...deps, log: request.log }, storeId);
    },
  );

  app.delete(
    DOMAIN_PATH,
    {
      schema: {
        operationId: 'adminDeleteSendingDomain',
        'x-problems': ['not_found'],
        tags,
        summary: 'Remove the sending domain',
        description: 'Store mail not yet sent goes out from the platform fallback sender.',
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const { storeId } = requireStaff(request);
      const domain = await removeSendingDomain(deps, storeId);
      request.log.info({ storeId, domain }, 'sending domain deleted');
      return reply.code(204).send(null);
    },
  );
};
