import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  tierOf,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitSubject,
} from './ratelimit.limiter.ts';
import { AppError } from '../lib/errors.ts';

/**
 * onRequest hook for the storefront scope, after `storefrontAuth`: counts the request against its
 * key's budget and sets the RateLimit-* headers (set here, they are kept on every answer, error
 * answers included); over budget it is 429 `rate_limited` with Retry-After. A callback hook that
 * answers without a promise when the counters are in process memory.
 */
export function storefrontRateLimit(limiter: RateLimiter) {
  return function rateLimit(
    request: FastifyRequest,
    reply: FastifyReply,
    done: (error?: Error) => void,
  ): void {
    const tier = tierOf(request.method);
    const key = request.storefront;
    if (tier === null || key === null) {
      done();
      return;
    }
    const subject = {
      keyId: key.keyId,
      storeId: key.storeId,
      tier,
      keyLimit: tier === 'public-read' ? key.rateLimitRead : key.rateLimitWrite,
      ip: request.ip,
    };
    const whose = (decision: RateLimitDecision) =>
      decision.scope === 'key' ? "This publishable key's" : "This client's";
    countWithHeaders(limiter, subject, reply, done, (decision) =>
      refusal(
        decision,
        `${whose(decision)} ${tier} budget of ${decision.limit} requests per window is used up; retry in ${decision.resetSeconds} s.`,
      ),
    );
  };
}

/**
 * Counts one request, sets the RateLimit-* headers (kept on every answer, error answers included)
 * and calls `done`, with the refusal when over budget. Without a promise when the counters are in
 * process memory.
 */
function countWithHeaders(
  limiter: RateLimiter,
  subject: RateLimitSubject,
  reply: FastifyReply | null,
  done: (error?: Error) => void,
  refuse: (decision: RateLimitDecision) => AppError,
): void {
  const decided = (decision: RateLimitDecision): void => {
    if (reply === null) {
      done(decision.allowed ? undefined : refuse(decision));
      return;
    }
    void reply.header('ratelimit-limit', String(decision.limit));
    void reply.header('ratelimit-remaining', String(decision.remaining));
    void reply.header('ratelimit-reset', String(decision.resetSeconds));
    done(decision.allowed ? undefined : refuse(decision));
  };
  const now = limiter.hitNow(subject);
  if (now) decided(now);
  else limiter.hit(subject).then(decided, done);
}

/** 429 `rate_limited` with Retry-After. */
function refusal(decision: RateLimitDecision, detail: string): AppError {
  return new AppError('rate_limited', 429, detail, {
    headers: { 'retry-after': String(decision.resetSeconds) },
  });
}

/**
 * The Admin API's budgets: every request from one client IP, signed in or not, counts against
 * RATE_LIMIT_ADMIN_IP before its token is even looked up (`adminClientRateLimit`, first onRequest
 * hook), and a staff session's reads and writes against RATE_LIMIT_ADMIN_READ / _WRITE
 * (`adminSessionRateLimit`, after authentication). Over either: 429 `rate_limited` with
 * Retry-After. The console's bursts (a page loads a handful of reads) stay far below both.
 */
export function adminClientRateLimit(limiter: RateLimiter, perWindow: number) {
  return function limitAdminClient(
    request: FastifyRequest,
    _reply: FastifyReply,
    done: (error?: Error) => void,
  ): void {
    if (request.method === 'OPTIONS') {
      done();
      return;
    }
    const subject = {
      keyId: 'all',
      storeId: 'admin',
      tier: 'public-read' as const,
      keyLimit: Number.MAX_SAFE_INTEGER,
      clientLimit: perWindow,
      ip: request.ip,
    };
    // No RateLimit-* headers from this one: the session's budget, counted next, is the one a
    // signed-in client paces itself by.
    countWithHeaders(limiter, subject, null, done, (decision) =>
      refusal(
        decision,
        `Too many Admin API requests from this address: the budget is ${decision.limit} per window; retry in ${decision.resetSeconds} s.`,
      ),
    );
  };
}

export function adminSessionRateLimit(limiter: RateLimiter, budgets: { read: number; write: number }) {
  return function limitAdminSession(
    request: FastifyRequest,
    reply: FastifyReply,
    done: (error?: Error) => void,
  ): void {
    const tier = tierOf(request.method);
    const staff = request.staff;
    if (tier === null || staff === null) {
      done();
      return;
    }
    const read = tier === 'public-read';
    const subject = {
      keyId: staff.sessionId,
      storeId: `admin:${staff.storeId}`,
      tier,
      keyLimit: read ? budgets.read : budgets.write,
      clientLimit: Number.MAX_SAFE_INTEGER,
      ip: 'session',
    };
    countWithHeaders(limiter, subject, reply, done, (decision) =>
      refusal(
        decision,
        `This staff session's ${read ? 'read' : 'write'} budget of ${decision.limit} requests per window is used up; retry in ${decision.resetSeconds} s.`,
      ),
    );
  };
}

/** 429 `rate_limited` with Retry-After, when a decision refuses. */
function refuseOver(decision: RateLimitDecision, detail: (retryInSeconds: number) => string): void {
  if (!decision.allowed) throw refusal(decision, detail(decision.resetSeconds));
}

/**
 * preHandler for the admin sign-in routes (decision `staff-sessions`): at most RATE_LIMIT_SIGN_IN requests per client IP
 * and window across sign-in and verify, whatever store or address they name, so nobody can try
 * codes or probe addresses at speed. 429 `rate_limited` with Retry-After.
 */
export function signInRateLimit(
  limiter: RateLimiter,
  perWindow: number,
  /** The counters' scope: staff sign-in counts across stores; customers' per store (decision `customer-accounts`). */
  scopeOf: (request: FastifyRequest) => string = () => 'admin-auth',
) {
  return async function limitSignIn(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const decision = await limiter.hit({
      keyId: 'sign-in',
      storeId: scopeOf(request),
      tier: 'public-write',
      keyLimit: Number.MAX_SAFE_INTEGER,
      clientLimit: perWindow,
      ip: request.ip,
    });
    refuseOver(decision, (s) => `Too many sign-in attempts from this address; retry in ${s} s.`);
  };
}

/**
 * A budget for one admin action of a store: at most `perWindow` uses per store and window, whoever
 * asks and from wherever (the counters of the storefront budgets, in a scope of their own). Over
 * it, throws 429 `rate_limited` with Retry-After.
 */
export function storeActionRateLimit(
  limiter: RateLimiter,
  perWindow: number,
  /** `name` names the counters; `what` is the action in the refusal's words ("verify-now requests"). */
  action: { name: string; what: string },
) {
  return async function limitStoreAction(storeId: string): Promise<void> {
    const decision = await limiter.hit({
      keyId: action.name,
      storeId: `${action.name}:${storeId}`,
      tier: 'public-write',
      keyLimit: perWindow,
      clientLimit: Number.MAX_SAFE_INTEGER,
      ip: 'store',
    });
    refuseOver(
      decision,
      (s) => `This store's budget of ${perWindow} ${action.what} per window is used up; retry in ${s} s.`,
    );
  };
}

/**
 * A budget for one action per client IP and store: at most `perWindow` uses per window (gift card
 * code guesses, decision `gift-card-codes`). Over it, throws 429 `rate_limited` with Retry-After.
 */
export function clientActionRateLimit(
  limiter: RateLimiter,
  perWindow: number,
  /** `name` names the counters; `what` is the action in the refusal's words ("gift card codes"). */
  action: { name: string; what: string },
) {
  return async function limitClientAction(storeId: string, client: string): Promise<void> {
    const decision = await limiter.hit({
      keyId: action.name,
      storeId: `${action.name}:${storeId}`,
      tier: 'public-write',
      keyLimit: Number.MAX_SAFE_INTEGER,
      clientLimit: perWindow,
      ip: client,
    });
    refuseOver(decision, (s) => `Too many ${action.what} from this address; retry in ${s} s.`);
  };
}
