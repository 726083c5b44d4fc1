import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import Type from 'typebox';
import type { AppContext } from './context.ts';
import { ProblemSchema } from './schemas.ts';
import { AppError } from '../lib/errors.ts';

const Health = Type.Object({ status: Type.String() });

export const healthRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/healthz',
    {
      logLevel: 'warn',
      schema: { tags: ['Operations'], summary: 'Liveness: the process is up', response: { 200: Health } },
    },
    () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      logLevel: 'warn',
      schema: {
        tags: ['Operations'],
        summary: 'Readiness: the database answers',
        response: { 200: Health, 503: ProblemSchema },
      },
    },
    async (request) => {
      try {
        await sql`SELECT 1`.execute(ctx.db);
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        throw new AppError('service_unavailable', 503, 'The database does not answer.');
      }
      return { status: 'ready' };
    },
  );
};
