/** The PostgreSQL of a run: DATABASE_URL, and databases made for the run (dropped at cleanup). */
import pg from 'pg';

/** DATABASE_URL when it is set and not blank (a run on PostgreSQL), else null (embedded PGlite). */
export function databaseUrlFromEnv(): string | null {
  return process.env.DATABASE_URL?.trim() ? process.env.DATABASE_URL.trim() : null;
}

/** Databases this run created (dropped by cleanup): admin URL and name. */
const createdDatabases: { adminUrl: string; name: string }[] = [];

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Connects one client to `url`, runs `fn`, disconnects. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Creates the database `name` on the server of `adminUrl` (whose own database is left alone) and
 * drops it at cleanup (`WITH (FORCE)`, also after an error or Ctrl-C). Returns its URL and the
 * server's version.
 */
export async function createDatabase(
  adminUrl: string,
  name: string,
): Promise<{ url: string; name: string; version: string }> {
  const version = await withClient(adminUrl, async (client) => {
    await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
    const result = await client.query<{ server_version: string }>('SHOW server_version');
    return result.rows[0]?.server_version ?? '?';
  });
  createdDatabases.push({ adminUrl, name });
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return { url: url.href, name, version };
}

/** Drops the databases createDatabase made (cleanup() calls it after the servers stop). */
export async function dropCreatedDatabases(): Promise<void> {
  for (const created of createdDatabases.splice(0)) {
    try {
      await withClient(created.adminUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(created.name)} WITH (FORCE)`);
      });
    } catch (error) {
      process.stderr.write(
        `bench: could not drop database ${created.name}: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    }
  }
}
