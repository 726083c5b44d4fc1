/**
 * The package as it is shipped: `@storefront/client` resolves to the built dist (which every other
 * test of this folder imports), the runtime imports nothing but its own modules (no Node built-ins,
 * no dependencies), it bundles for the browser, and it stays within its size budget.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import * as client from '@storefront/client';
import { bundleSize } from '../../../scripts/client-size.ts';

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
