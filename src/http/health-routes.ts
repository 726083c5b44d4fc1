import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { ProblemSchema } from './schemas.ts';
import { isDatabaseUnavailable, recentResourceFailure } from '../db/errors.ts';
import { AppError } from '../lib/errors.ts';
import { DATABASE_RETRY_AFTER_S, sendProblem } from './errors.ts';

const Health = Type.Object({ status: Type.String({ examples: ['ok'] }) }, { title: 'Health' });

/**
 * Liveness and readiness. `ping` resolves when the database answers within the readiness bound
 * (DATABASE_READINESS_TIMEOUT); readiness also fails for a while after the database refused a
 * write for lack of resources (decision `database-faults`): a full disk still answers `SELECT 1`.
 */
export const healthRoutes: FastifyPluginAsyncTypebox<{
  deps: { ping: () => Promise<void>; now: () => number };
}> = async (app, { deps }) => {
  app.get(
    '/healthz',
    {
      logLevel: 'warn',
      config: { traced: false },
      schema: {
        operationId: 'getLiveness',
        tags: ['Operations'],
        summary: 'Liveness: the process is up',
        response: { 200: Health },
      },
    },
    () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      logLevel: 'warn',
      config: { traced: false },
      schema: {
        operationId: 'getReadiness',
        tags: ['Operations'],
        summary: 'Readiness: the database answers',
        response: { 200: Health, 503: ProblemSchema },
      },
    },
    async (request, reply) => {
      // Answered, not thrown: the failures were logged (throttled) when they happened, and a
      // probe every few seconds adds nothing to that.
      if (recentResourceFailure(deps.now()) !== null)
        return sendProblem(
          reply,
          new AppError(
            'service_unavailable',
            503,
            'The database could not write recently: it lacks disk space, memory or I/O.',
            { headers: { 'retry-after': String(DATABASE_RETRY_AFTER_S) } },
          ),
        );
      try {
        await deps.ping();
      } catch (error) {
        // An outage is answered (503, Retry-After) and logged once per interval by the error handler.
        if (isDatabaseUnavailable(error)) throw error;
        request.log.warn({ err: (error as Error).message }, 'readiness check failed');
        throw new AppError('service_unavailable', 503, 'The database does not answer.');
      }
      return { status: 'ready' };
    },
  );
};
