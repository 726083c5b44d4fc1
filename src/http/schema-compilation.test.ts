import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestStore, startTestApp } from '../test/harness.ts';

interface Problem {
  title: string;
  errors?: { pointer: string }[];
}

describe('route schemas (decision `lazy-schema-compilation`)', () => {
  test('every validator and response serializer compiles', async () => {
    // Fastify compiles them all while the app gets ready and fails with FST_ERR_SCH_*_BUILD naming
    // the route when one does not; by default each compiles on its first use instead.
    const t = await startTestApp({ eagerSchemas: true });
    try {
      const health = await t.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(health.statusCode, 200);
    } finally {
      await t.close();
    }
  });

  test('a schema compiled on first use validates every later request, and serializes', async () => {
    const t = await startTestApp();
    try {
      const shop = await createTestStore(t);
      const get = (url: string) =>
        t.app.inject({ method: 'GET', url, headers: { 'x-publishable-key': shop.publishableKey } });
      for (const query of ['limit=0', 'limit=1e2', 'limit=0']) {
        const refused = await get(`/storefront/v1/products?${query}`);
        assert.equal(refused.statusCode, 400, query);
        const problem = refused.json<Problem>();
        assert.equal(problem.title, 'validation_failed', query);
        assert.deepEqual(
          problem.errors?.map((e) => e.pointer),
          ['/limit'],
          query,
        );
      }
      const page = await get('/storefront/v1/products?limit=5');
      assert.equal(page.statusCode, 200);
      assert.deepEqual(page.json(), { items: [], nextCursor: null });
    } finally {
      await t.close();
    }
  });
});
