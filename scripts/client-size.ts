/**
 * `npm run client:size`: builds the client, bundles its runtime (dist/index.js) for the browser with
 * esbuild, minified, and prints the bundle's bytes and its gzipped bytes. Also measures what a shop
 * front-end that imports only the storefront client and verifyWebhook ships after tree shaking.
 *
 * The browser platform makes the bundle fail if the runtime code ever imports a Node built-in.
 */
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { buildClient } from './build-client.ts';

const root = path.resolve(import.meta.dirname, '..');
const entry = path.join(root, 'packages', 'client', 'dist', 'index.js');

export interface BundleSize {
  minified: number;
  gzipped: number;
}

/** Minified and gzipped bytes of a browser bundle of `source` (an ES module importing the client). */
export async function bundleSize(source: string): Promise<BundleSize> {
  const result = await build({
    stdin: { contents: source, resolveDir: root, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const bytes = result.outputFiles[0]!.contents;
  return { minified: bytes.length, gzipped: gzipSync(bytes, { level: 9 }).length };
}

const kB = (bytes: number): string => `${(bytes / 1000).toFixed(1)} kB`;

if (import.meta.main) {
  buildClient();
  const everything = await bundleSize(`export * from ${JSON.stringify(entry)};`);
  const storefront = await bundleSize(
    `export { createStorefrontClient, verifyWebhook } from ${JSON.stringify(entry)};`,
  );
  process.stdout.write(
    `client: ${kB(everything.minified)} min, ${kB(everything.gzipped)} gzip ` +
      `(${everything.minified} / ${everything.gzipped} bytes, everything exported)\n` +
      `storefront only: ${kB(storefront.minified)} min, ${kB(storefront.gzipped)} gzip ` +
      `(${storefront.minified} / ${storefront.gzipped} bytes, createStorefrontClient + verifyWebhook)\n`,
  );
}
