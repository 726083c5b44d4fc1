/**
 * The shop's build (scripts/build-ui.ts runs it): served by the service at /shop, every asset a
 * file under /shop/assets (no inline script or style: the CSP allows 'self' only). Preact through
 * the automatic JSX runtime, no plugin. The client and the block renderer are taken from their
 * sources, so the shop never depends on another package's build order.
 *
 * As the starter of another store (docs/shop.md): `SHOP_BASE=/ VITE_STOREFRONT_API=https://api.example.com
 * VITE_STOREFRONT_KEY=pk_… npx vite build packages/shop` gives a static site for any host.
 */
import path from 'node:path';
import { defineConfig } from 'vite';

const packages = path.resolve(import.meta.dirname, '..');
const base = process.env.SHOP_BASE ?? '/shop/';

export default defineConfig({
  root: import.meta.dirname,
  base,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: {
    alias: {
      '@storefront/client': path.join(packages, 'client', 'src', 'index.ts'),
      '@storefront/blocks/blocks.css': path.join(packages, 'blocks', 'src', 'blocks.css'),
      '@storefront/blocks': path.join(packages, 'blocks', 'src', 'index.ts'),
      '@storefront/address': path.join(packages, 'address', 'src', 'index.ts'),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
  logLevel: 'warn',
});
