import type { FastifyBaseLogger } from 'fastify';

/** The logging surface services need: satisfied by pino loggers and by Fastify's request.log. */
export type Log = Pick<FastifyBaseLogger, 'debug' | 'info' | 'warn' | 'error'>;
