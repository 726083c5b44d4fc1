/**
 * The console's build (scripts/build-ui.ts runs it): served by the service at /admin, so every
 * asset is a file under /admin/assets (no inline script, style or data: URL: the CSP allows
 * 'self' only). The client, the block rules and the address rules are taken from their sources, so
 * the console never depends on another package's build order.
 */
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const packages = path.resolve(import.meta.dirname, '..');

export default defineConfig({
  root: import.meta.dirname,
  base: '/admin/',
  plugins: [react()],
  resolve: {
    alias: {
      '@storefront/client': path.join(packages, 'client', 'src', 'index.ts'),
      '@storefront/address': path.join(packages, 'address', 'src', 'index.ts'),
      '@storefront/blocks/blocks.css': path.join(packages, 'blocks', 'src', 'blocks.css'),
      '@storefront/blocks': path.join(packages, 'blocks', 'src', 'index.ts'),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 400,
  },
  logLevel: 'warn',
});
