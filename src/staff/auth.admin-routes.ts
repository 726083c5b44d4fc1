import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { reportIfOutage } from '../db/errors.ts';
import Type from 'typebox';
import { problemResponses } from '../http/schemas.ts';
import { signInRateLimit } from '../ratelimit/ratelimit.hook.ts';
import { clientBucketOf, type RateLimiter } from '../ratelimit/ratelimit.limiter.ts';
import {
  requestSignInCode,
  revokeStaffSession,
  verifySignInCode,
  type SignInDeps,
} from './sign-in.service.ts';
import { StaffRoleSchema } from './staff.schemas.ts';
import { requireStaff } from '../http/principals.ts';

const Email = Type.String({ format: 'email', maxLength: 254 });
const StoreSlug = Type.String({ minLength: 1, maxLength: 63, description: 'The store slug.' });

const Session = Type.Object(
  {
    token: Type.String({ description: 'st_… token; send it as Authorization: Bearer. Shown only here.' }),
    expiresAt: Type.String({ format: 'date-time' }),
    staff: Type.Object({ id: Type.String(), email: Type.String(), role: StaffRoleSchema }),
  },
  { title: 'StaffSession' },
);

const CurrentSession = Type.Object(
  {
    expiresAt: Type.String({ format: 'date-time' }),
    storeId: Type.String(),
    staff: Type.Object({ id: Type.String(), email: Type.String(), role: StaffRoleSchema }),
  },
  { title: 'CurrentStaffSession' },
);

export interface AuthRouteDeps extends SignInDeps {
  rateLimiter: RateLimiter;
  /** Sign-in and verify requests per client IP and window (decision `staff-sessions`). */
  signInLimit: number;
}

export const authAdminRoutes: FastifyPluginAsyncTypebox<{ deps: AuthRouteDeps }> = async (app, { deps }) => {
  const limitSignIn = signInRateLimit(deps.rateLimiter, deps.signInLimit);
  // Sign-in codes are made after the answer: known and unknown addresses answer alike (decision `sign-in-answers-first`).
  const codeRequests = new Set<Promise<void>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled([...codeRequests]);
  });

  app.post(
    '/auth/sign-in',
    {
      preHandler: limitSignIn,
      schema: {
        operationId: 'adminRequestSignInCode',
        'x-problems': ['rate_limited'],
        tags: ['Admin: authentication'],
        summary: 'Email a one-time sign-in code',
        description:
          "Always 202, at once, whether or not the address belongs to a staff member of the store. A real staff member receives a 6-digit code, valid 10 minutes, from the platform sender; it works only from the client (IP address) that asked for it, and replaces only that client's earlier code. At most RATE_LIMIT_SIGN_IN requests (sign-in and verify together) per client IP and minute (429).",
        security: [],
        body: Type.Object(
          { storeSlug: StoreSlug, email: Email },
          { title: 'SignInCodeRequest', additionalProperties: false },
        ),
        response: {
          202: Type.Object({ status: Type.Literal('sent') }, { title: 'SignInCodeSent' }),
          ...problemResponses,
        },
      },
    },
    async (request, reply) => {
      const { storeSlug, email } = request.body;
      const client = clientBucketOf(request.ip);
      const pending: Promise<void> = requestSignInCode(deps, { storeSlug, email, client })
        .catch((error: unknown) => {
          if (!reportIfOutage(request.log, error))
            request.log.error({ err: error }, 'could not issue a sign-in code');
        })
        .finally(() => codeRequests.delete(pending));
      codeRequests.add(pending);
      return reply.code(202).send({ status: 'sent' as const });
    },
  );

  app.post(
    '/auth/verify',
    {
      preHandler: limitSignIn,
      schema: {
        operationId: 'adminVerifySignInCode',
        'x-problems': ['unauthorized', 'rate_limited'],
        tags: ['Admin: authentication'],
        summary: 'Exchange an emailed code for a staff session token',
        description:
          "Send it from the client (IP address) that asked for the code. Each guess spends one of the code's 5 attempts before it is compared; a wrong, used, spent or expired code, or one asked for elsewhere, is 401.",
        security: [],
        body: Type.Object(
          { storeSlug: StoreSlug, email: Email, code: Type.String({ pattern: '^[0-9]{6}$' }) },
          { title: 'SignInCodeVerification', additionalProperties: false },
        ),
        response: { 200: Session, ...problemResponses },
      },
    },
    async (request) => {
      const { storeSlug, email, code } = request.body;
      const client = clientBucketOf(request.ip);
      const session = await verifySignInCode(deps, { storeSlug, email, client }, code);
      return { token: session.token, expiresAt: session.expiresAt.toISOString(), staff: session.staff };
    },
  );

  app.get(
    '/auth/session',
    {
      schema: {
        operationId: 'adminGetSession',
        tags: ['Admin: authentication'],
        summary: 'The current staff session',
        response: { 200: CurrentSession, ...problemResponses },
      },
    },
    async (request) => {
      const staff = requireStaff(request);
      return {
        expiresAt: staff.expiresAt.toISOString(),
        storeId: staff.storeId,
        staff: { id: staff.staffId, email: staff.email, role: staff.role },
      };
    },
  );

  app.post(
    '/auth/sign-out',
    {
      schema: {
        operationId: 'adminSignOut',
        tags: ['Admin: authentication'],
        summary: 'End the current staff session',
        response: { 204: Type.Null(), ...problemResponses },
      },
    },
    async (request, reply) => {
      const staff = requireStaff(request);
      await revokeStaffSession(deps, staff.storeId, staff.sessionId);
      return reply.code(204).send(null);
    },
  );
};
