/**
 * The OpenAPI document as a committed file (`contract/openapi.json`), generated from the route
 * schemas: the same document a server with the default configuration serves at /openapi.json.
 *
 *   node scripts/openapi.ts          writes contract/openapi.json
 *   node scripts/openapi.ts --check  fails when the committed file differs from the routes (npm run check)
 *
 * The app is built on an in-memory PGlite (the keyring it needs lives in the database); nothing listens.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { pgliteOptions } from '../src/db/pglite.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createRuntime } from '../src/runtime.ts';

const root = path.resolve(import.meta.dirname, '..');
export const OPENAPI_FILE = path.join(root, 'contract', 'openapi.json');

/** The document a default server serves, as the committed file's text. */
export async function generateOpenApi(): Promise<string> {
  // A fixed environment: the document must not depend on who generates it.
  const config = loadConfig({ SEED_DEMO: '0', LOG_LEVEL: 'silent' }, root);
  const db = await openDatabase({
    databaseUrl: null,
    dataDir: '',
    pglite: await PGlite.create({ ...pgliteOptions }),
  });
  try {
    await migrateToLatest(db.kysely);
    const log = pino({ level: 'silent' });
    const runtime = await createRuntime(config, db, { log });
    const app = await buildApp(runtime, { logger: false });
    try {
      await app.ready();
      return `${JSON.stringify(app.swagger(), null, 2)}\n`;
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
  }
}

if (import.meta.main) {
  const text = await generateOpenApi();
  if (process.argv.includes('--check')) {
    const committed = fs.existsSync(OPENAPI_FILE) ? fs.readFileSync(OPENAPI_FILE, 'utf8') : '';
    if (committed !== text) {
      process.stderr.write(
        `${path.relative(root, OPENAPI_FILE)} is not the document the routes describe.\n` +
          'Run `npm run openapi` and commit the result (and `npm run contract` if the storefront changed).\n',
      );
      process.exit(1);
    }
    process.stdout.write(`OpenAPI document up to date: ${path.relative(root, OPENAPI_FILE)}\n`);
  } else {
    fs.mkdirSync(path.dirname(OPENAPI_FILE), { recursive: true });
    fs.writeFileSync(OPENAPI_FILE, text);
    process.stdout.write(`Wrote ${path.relative(root, OPENAPI_FILE)}\n`);
  }
}
