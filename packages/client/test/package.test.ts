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
import { adminOperations } from '../src/operations.ts';
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
    // A shop's bundle has a fixed budget. Everything grows with the Admin API by design: the code
    // within 20 kB minified and 6.5 kB gzipped, plus each admin operation's entry in the table (its
    // id, method and path: about 45 bytes minified, 12 gzipped).
    assert.ok(storefront.minified < 16_000, `a shop's bundle: ${storefront.minified} bytes minified`);
    assert.ok(storefront.gzipped < 6_000, `a shop's bundle: ${storefront.gzipped} bytes gzipped`);
    const admin = Object.keys(adminOperations).length;
    assert.ok(
      everything.minified < 20_000 + 50 * admin,
      `everything: ${everything.minified} bytes minified for ${admin} admin operations`,
    );
    assert.ok(
      everything.gzipped < 6_500 + 15 * admin,
      `everything: ${everything.gzipped} bytes gzipped for ${admin} admin operations`,
    );
    assert.ok(
      storefront.minified < everything.minified - 3000,
      'the admin operations are left out of a shop bundle',
    );
  });
});

/**
 * The named types users import are the document's component schemas, and a webhook event is a union
 * discriminated by `event`: a file using them (with `@ts-expect-error` on the misuses the types must
 * refuse) compiles against the shipped declarations.
 */
describe('the named types', () => {
  test('Product, Cart, Order, Problem and the webhook events type-check as a shop would use them', async () => {
    const generated = await generateClientFiles(
      fs.readFileSync(path.resolve(PACKAGE, '../../contract/openapi.json'), 'utf8'),
    );
    const schema = [...generated].find(([file]) => file.endsWith('schema.d.ts'))![1];
    for (const name of ['ProductDetail', 'Cart', 'StorefrontOrder', 'Problem', 'OrderPaidEvent'])
      assert.match(schema, new RegExp(`\\n    ${name}: \\{`), `components.schemas.${name}`);

    fs.mkdirSync(path.join(PACKAGE, '.tmp'), { recursive: true });
    const dir = fs.mkdtempSync(path.join(PACKAGE, '.tmp', 'uses-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'uses.ts'),
        [
          "import { isNotModified } from '@storefront/client';",
          "import type { Cart, Checkout, Order, Payment, Problem, Product, ProductCard, StorefrontClient, WebhookEvent } from '@storefront/client';",
          '// Payment is the payment checkout answers, with the client secret for the provider.',
          'export const paymentOf = (checkout: Checkout): Payment => checkout.payment;',
          'export const secret = (payment: Payment): string => payment.clientSecret;',
          'export const price = (product: Product): number => product.variants[0]!.priceAmount;',
          'export const pointer = (problem: Problem): string | undefined => problem.errors?.[0]?.pointer;',
          'export const total = (order: Order): number => order.total.amount;',
          'export const lines = (cart: Cart): number => cart.items.length;',
          'export const card = (item: ProductCard): string => item.title;',
          'export function paidOrder(event: WebhookEvent): string | null {',
          "  if (event.event === 'order.paid') return event.data.orderId;",
          '  // @ts-expect-error a product event has no orderId',
          "  if (event.event === 'product.created') return event.data.orderId;",
          '  return null;',
          '}',
          "// @ts-expect-error 'order.shipped' is not an event",
          "export type Shipped = WebhookEvent<'order.shipped'>;",
          '// @ts-expect-error amounts are integers of minor units, not strings',
          'export const wrong = (order: Order): string => order.total.amount;',
          '// A read without ifNoneMatch is the body; with it, the body or NotModified.',
          'export async function reads(client: StorefrontClient, id: string, etag: string) {',
          '  const plain: Product = await client.products.get(id, { signal: AbortSignal.timeout(1000) });',
          '  // @ts-expect-error a conditional read may answer NotModified',
          '  const unchecked: Product = await client.products.get(id, { ifNoneMatch: etag });',
          '  const either = await client.products.get(id, { ifNoneMatch: etag });',
          '  const seen: string = isNotModified(either) ? either.etag : either.title;',
          "  const requested = await client.request('getProduct', { path: { id }, header: { 'If-None-Match': etag } });",
          '  // @ts-expect-error so may the generic request sent with If-None-Match',
          '  const uncheckedRequest: Product = requested;',
          "  const requestedPlain: Product = await client.request('getProduct', { path: { id } });",
          '  const page = await client.products.list(undefined, { ifNoneMatch: etag });',
          "  const count: number = 'notModified' in page ? 0 : page.items.length;",
          '  return [plain, unchecked, seen, uncheckedRequest, requestedPlain, count];',
          '}',
        ].join('\n'),
      );
      fs.writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2023',
            skipLibCheck: false,
            types: [],
          },
          files: ['uses.ts'],
        }),
      );
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      const result = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
      assert.equal(result.status, 0, `the uses do not type-check:\n${result.stdout}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
