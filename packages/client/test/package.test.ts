/**
 * The package as it is shipped: `@storefront/client` resolves to the built dist (which every other
 * test of this folder imports), the runtime imports nothing but its own modules (no Node built-ins,
 * no dependencies), it bundles for the browser, and it stays within its size budget.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import * as client from '@storefront/client';
import { bundleSize } from '../../../scripts/client-size.ts';
import { generateClientFiles } from '../../../scripts/client-types.ts';

const PACKAGE = path.resolve(import.meta.dirname, '..');
const DIST = path.join(PACKAGE, 'dist');

describe('the built package', () => {
  test('@storefront/client resolves to dist/index.js, with declarations and the generated schema next to it', () => {
    const resolved = fileURLToPath(import.meta.resolve('@storefront/client'));
    assert.equal(fs.realpathSync(resolved), path.join(DIST, 'index.js'));
    const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as {
      type: string;
      exports: { '.': { types: string; default: string } };
      dependencies?: Record<string, string>;
    };
    assert.equal(manifest.type, 'module');
    assert.equal(manifest.dependencies, undefined, 'no runtime dependencies');
    for (const target of Object.values(manifest.exports['.'])) {
      assert.ok(fs.existsSync(path.join(PACKAGE, target)), `${target} exists`);
    }
    assert.ok(fs.existsSync(path.join(DIST, 'schema.d.ts')), 'the generated types are shipped');
    for (const name of fs.readdirSync(DIST).filter((name) => name.endsWith('.d.ts'))) {
      const text = fs.readFileSync(path.join(DIST, name), 'utf8');
      assert.doesNotMatch(
        text,
        /from '\.[^']*\.ts'/,
        `${name} names .js modules, as any TypeScript can resolve`,
      );
    }
    assert.equal(typeof client.createStorefrontClient, 'function');
    assert.equal(typeof client.createAdminClient, 'function');
    assert.equal(typeof client.verifyWebhook, 'function');
    assert.equal(typeof client.StorefrontError, 'function');
  });

  test('the runtime imports only its own modules: no Node built-ins, no packages', () => {
    const files = fs.readdirSync(DIST).filter((name) => name.endsWith('.js'));
    assert.ok(files.length >= 5);
    for (const name of files) {
      const text = fs.readFileSync(path.join(DIST, name), 'utf8');
      const specifiers = [...text.matchAll(/\b(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map(([, s]) => s!);
      for (const specifier of specifiers)
        assert.match(specifier, /^\.\/[\w-]+\.js$/, `${name} imports ${specifier}`);
      assert.doesNotMatch(text, /\brequire\(|\bprocess\.|\bBuffer\b/, `${name} uses no Node globals`);
    }
  });

  test('it bundles for the browser within its size budget', async () => {
    const entry = JSON.stringify(path.join(DIST, 'index.js'));
    const everything = await bundleSize(`export * from ${entry};`);
    const storefront = await bundleSize(`export { createStorefrontClient, verifyWebhook } from ${entry};`);
    assert.ok(everything.minified < 25_000, `everything: ${everything.minified} bytes minified`);
    assert.ok(everything.gzipped < 8_000, `everything: ${everything.gzipped} bytes gzipped`);
    assert.ok(
      storefront.minified < everything.minified - 3000,
      'the admin operations are left out of a shop bundle',
    );
  });
});

/**
 * The document is about to name its schemas (components, $ref), answer errors as
 * application/problem+json, document 304s and describe webhooks. The client's types are derived
 * from operations, so they must keep compiling: generate them from such a document and compile the
 * client and its named types against them.
 */
describe('the types against a document with named components', () => {
  test('the client compiles and its named types resolve when schemas move to components', async () => {
    type Schema = Record<string, unknown>;
    type Operation = {
      operationId: string;
      responses: Record<string, { description: string; content?: Schema }>;
    };
    const document = JSON.parse(
      fs.readFileSync(path.resolve(PACKAGE, '../../contract/openapi.json'), 'utf8'),
    ) as {
      components: { schemas: Record<string, Schema> };
      paths: Record<string, Record<string, Operation>>;
      webhooks?: Schema;
    };
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    const getProduct = operations.find((operation) => operation.operationId === 'getProduct')!;
    const json = (response: { content?: Schema }) =>
      (response.content!['application/json'] as { schema: Schema }).schema;
    document.components.schemas.Product = json(getProduct.responses['200']!);
    document.components.schemas.Problem = json(getProduct.responses['4XX']!);
    getProduct.responses['200']!.content = {
      'application/json': { schema: { $ref: '#/components/schemas/Product' } },
    };
    getProduct.responses['304'] = { description: 'Not Modified' };
    for (const operation of operations) {
      for (const status of ['4XX', '5XX']) {
        if (!operation.responses[status]) continue;
        operation.responses[status].content = {
          'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
        };
      }
    }
    document.webhooks = {
      'order.paid': {
        post: {
          requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
          responses: { '200': { description: 'Received' } },
        },
      },
    };

    fs.mkdirSync(path.join(PACKAGE, '.tmp'), { recursive: true });
    const dir = fs.mkdtempSync(path.join(PACKAGE, '.tmp', 'future-'));
    try {
      fs.mkdirSync(path.join(dir, 'src'));
      for (const name of fs.readdirSync(path.join(PACKAGE, 'src'))) {
        fs.copyFileSync(path.join(PACKAGE, 'src', name), path.join(dir, 'src', name));
      }
      for (const [file, text] of await generateClientFiles(JSON.stringify(document))) {
        fs.writeFileSync(path.join(dir, 'src', path.basename(file)), text);
      }
      assert.match(
        fs.readFileSync(path.join(dir, 'src', 'schema.d.ts'), 'utf8'),
        /Product: \{/,
        'a named schema',
      );
      fs.writeFileSync(
        path.join(dir, 'src', 'uses.ts'),
        [
          "import type { Cart, Order, Problem, Product, ProductCard } from './types.ts';",
          'export const price = (product: Product): number => product.variants[0]!.priceAmount;',
          'export const pointer = (problem: Problem): string | undefined => problem.errors?.[0]?.pointer;',
          'export const code = (problem: Problem): string => problem.title;',
          'export const total = (order: Order): number => order.total.amount;',
          'export const lines = (cart: Cart): number => cart.items.length;',
          'export const card = (item: ProductCard): string => item.title;',
        ].join('\n'),
      );
      const config = JSON.parse(
        fs.readFileSync(path.join(PACKAGE, 'tsconfig.json'), 'utf8').replace(/^\s*\/\/.*$/gm, ''),
      ) as { compilerOptions: Record<string, unknown> };
      config.compilerOptions.noEmit = true;
      fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      const result = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
      assert.equal(
        result.status,
        0,
        `the client does not compile against the future document:\n${result.stdout}`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
