import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type SerializerFactory = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']
>;

/**
 * Fastify's own response serializers (fast-json-stringify), each compiled on its first use unless
 * `eager` (decision `lazy-schema-compilation`). Every route has one per documented status (its
 * problem+json errors included), so compiling them all at start-up cost more time and memory than
 * the routes a process ever answers with.
 */
export function serializerFactory(options: { eager?: boolean } = {}): SerializerFactory {
  const build = SerializerSelector();
  if (options.eager) return build;
  return (externalSchemas, serializerOptions) => {
    const compile = build(externalSchemas, serializerOptions);
    return (route) => {
      let serialize: ((data: unknown) => string) | null = null;
      return (data: unknown) => (serialize ??= compile(route))(data);
    };
  };
}
