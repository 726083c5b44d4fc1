import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requestScope, runAsRequest, type RequestScope } from '../db/bounds.ts';

/**
 * Bounds each request's database work from its start (decision `database-faults`,
 * src/db/bounds.ts): the hooks and the handler run in the request's scope, entered again before
 * validation (a body is read from the socket's events, outside it), and the scope closes when the
 * answer is sent.
 */
export function boundRequestDatabaseWork(app: FastifyInstance): void {
  const scopes = new WeakMap<FastifyRequest, RequestScope>();
  app.addHook('onRequest', (request, _reply, done) => {
    const scope = requestScope();
    scopes.set(request, scope);
    runAsRequest(scope, done);
  });
  app.addHook('preValidation', (request, _reply, done) => {
    const scope = scopes.get(request);
    if (scope === undefined) done();
    else runAsRequest(scope, done);
  });
  app.addHook('onResponse', (request, _reply, done) => {
    const scope = scopes.get(request);
    if (scope !== undefined) scope.answered = true;
    done();
  });
}
