/**
 * Idempotency as a route option (decisions `idempotency-keys` and `checkout-after-a-crash`). A route declares itself idempotent in its `config`:
 *
 *   app.post('/checkout', { schema, config: { idempotent: { name: 'checkout', storeId, recover } } },
 *     async (request, reply) => { reply.code(201); return checkout(deps, …, request.idempotencyKey); });
 *
 * and the `onRoute` hook below wraps its handler: the Idempotency-Key header is required and
 * parsed, the key is claimed for (store, route, key) with the request body's hash, a retry replays
 * the stored answer byte for byte, and the handler runs at most once per key. The handler stays as
 * thin as any other: it returns its body and sets its status; it sees the key as
 * `request.idempotencyKey` (a resource that carries its key can be found again by it, `recover`),
 * and may store its answer in its own transaction with `request.storeIdempotentAnswer`.
 */
import type { FastifyReply, FastifyRequest, onRouteHookHandler, RouteHandlerMethod } from 'fastify';
import type { Compilable, Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import type { Clock } from '../lib/clock.ts';
import type { Keyring } from '../lib/keyring.ts';
import { idempotencyKeyOf, requestHash, withIdempotency, type HandlerAnswer } from './idempotency.ts';

/** What an idempotent route declares. */
export interface IdempotentRoute {
  /** Names the route in the key's scope: a key is unique per store and route. */
  name: string;
  /** The store the request acts for (its principal is known by the time the handler runs). */
  storeId: (request: FastifyRequest) => string;
  /**
   * The answer for the resource an earlier attempt with this key made, when that attempt committed
   * but never stored its answer (a crash in between); null when it made none.
   */
  recover?: (request: FastifyRequest, key: string) => Promise<HandlerAnswer | null>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Makes the route idempotent by its Idempotency-Key header (src/idempotency/idempotency.hook.ts). */
    idempotent?: IdempotentRoute;
  }
  interface FastifyRequest {
    /** The request's Idempotency-Key (a lower-case UUID) on an idempotent route; '' elsewhere. */
    idempotencyKey: string;
    /**
     * On an idempotent route: stores the handler's answer body (with the reply's status) in the
     * handler's own transaction, so that it commits with what it answers (the checkout's order): it
     * returns the statement, for the transaction to end with (`transactionEndingWith`).
     * Optional for a handler; without it the answer is stored after the handler returns.
     */
    storeIdempotentAnswer: ((db: Kysely<Database>, body: unknown) => Compilable) | null;
  }
}

/** Where keys and answers are kept, and for how long. */
export interface IdempotencySettings {
  db: Kysely<Database>;
  /** Seals stored answers (decision `sealed-secrets`: a checkout answer holds the payment's client secret). */
  keyring: Keyring;
  clock: Clock;
  /** How long a key and its answer are kept. */
  ttlMs: number;
  /** How long the holder of an in-progress key keeps it before a retry may take it over. */
  leaseMs: number;
}

/**
 * The `onRoute` hook that makes routes with `config.idempotent` idempotent. Add it to the root
 * instance before the routes are registered (`app.decorateRequest('idempotencyKey', '')` and
 * `app.decorateRequest('storeIdempotentAnswer', null)` too).
 */
export function idempotentRoutes(settings: IdempotencySettings): onRouteHookHandler {
  return (route) => {
    const declared = route.config?.idempotent;
    if (!declared) return;
    const handler = route.handler as RouteHandlerMethod;
    route.handler = async function idempotent(request: FastifyRequest, reply: FastifyReply) {
      const key = idempotencyKeyOf(request);
      request.idempotencyKey = key;
      return withIdempotency(
        {
          ...settings,
          storeId: declared.storeId(request),
          route: declared.name,
          key,
          hash: requestHash(request.body),
          ...(declared.recover ? { recover: () => declared.recover!(request, key) } : {}),
        },
        reply,
        async (storeAnswer) => {
          request.storeIdempotentAnswer = (db, body) => storeAnswer(db, { status: reply.statusCode, body });
          const body: unknown = await handler.call(this, request, reply);
          return { status: reply.statusCode, body };
        },
      );
    };
  };
}
