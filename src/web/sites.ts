/** Where the web front ends' builds are (decision `console-built-not-committed`): built by `npm ci` and `npm start`, never committed. */
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');

/** The merchant console (packages/console), served at /admin. */
export const CONSOLE_DIST = path.join(root, 'packages', 'console', 'dist');
/** The reference shop (packages/shop), served at /shop. */
export const SHOP_DIST = path.join(root, 'packages', 'shop', 'dist');
