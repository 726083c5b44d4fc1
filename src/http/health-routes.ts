import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { ProblemSchema } from './schemas.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { AppError } from '../lib/errors.ts';

const Health = Type.Object({ status: Type.String({ examples: ['ok'] }) }, { title: 'Health' });

/** Liveness and readiness; `ping` answers when the database does. */
export const healthRoutes: FastifyPluginAsyncTypebox<{ deps: { ping: () => Promise<void> } }> = async (
  app,
  { deps },
) => {
  app.get(
    '/healthz',
    {
      logLevel: 'warn',
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
      schema: {
        operationId: 'getReadiness',
        tags: ['Operations'],
        summary: 'Readiness: the database answers',
        response: { 200: Health, 503: ProblemSchema },
      },
    },
    async (request) => {
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
