import { sql, type Kysely } from 'kysely';

/**
 * Content: menus, pages and regions, each addressed by a store-unique handle, slug or key.
 *
 * The handle/slug/key columns use the "C" collation, so lists ordered by them (and the keyset
 * cursors over them) sort bytewise and identically on PGlite and PostgreSQL, straight from the
 * unique index. A region keeps its draft and its published tree side by side: publishing copies
 * the draft over the published tree in one UPDATE.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE menus (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      handle text COLLATE "C" NOT NULL CHECK (handle ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
      items jsonb NOT NULL CHECK (
        CASE WHEN jsonb_typeof(items) = 'array' THEN jsonb_array_length(items) <= 100 ELSE false END
      ),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, handle)
    )`.execute(db);

  await sql`
    CREATE TABLE pages (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      slug text COLLATE "C" NOT NULL CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
      title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
      body text NOT NULL CHECK (length(body) <= 100000),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, slug)
    )`.execute(db);

  await sql`
    CREATE TABLE regions (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      key text COLLATE "C" NOT NULL CHECK (key ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
      draft_blocks jsonb NOT NULL CHECK (jsonb_typeof(draft_blocks) = 'array'),
      draft_updated_at timestamptz(3) NOT NULL DEFAULT now(),
      published_blocks jsonb CHECK (jsonb_typeof(published_blocks) = 'array'),
      published_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      UNIQUE (store_id, key),
      CHECK ((published_blocks IS NULL) = (published_at IS NULL))
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['regions', 'pages', 'menus']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
