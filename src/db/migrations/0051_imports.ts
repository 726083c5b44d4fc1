import { sql, type Kysely } from 'kysely';

/**
 * CSV imports (decision `csv-imports`):
 *
 * - `imports`: a job per uploaded file: its kind, whether it is a dry run, where it stands
 *   (`queued` → `checking` → `running` → `completed` | `failed`), its progress in data rows, the
 *   bad rows found (`errors`, at most 1000 kept; `error_count` counts them all), what it did
 *   (`summary`), and the lease of the worker that has it (`lease_token`, `locked_until`): a worker
 *   that dies leaves the job to another once the lease ends, which carries on from `done`.
 * - `import_chunks`: the file itself, in pieces of at most 1 MiB, kept only while the job is not
 *   finished (a customers file holds personal data: it is deleted when the job ends).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE imports (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      kind text NOT NULL CHECK (kind IN ('products', 'customers', 'inventory')),
      dry_run boolean NOT NULL,
      status text NOT NULL DEFAULT 'queued'
        CHECK (status IN ('queued', 'checking', 'running', 'completed', 'failed')),
      file_name text CHECK (length(file_name) <= 255),
      file_bytes integer NOT NULL CHECK (file_bytes >= 0),
      rows integer CHECK (rows >= 0),
      done integer NOT NULL DEFAULT 0 CHECK (done >= 0),
      errors jsonb NOT NULL DEFAULT '[]',
      error_count integer NOT NULL DEFAULT 0 CHECK (error_count >= 0),
      ignored_columns text[] NOT NULL DEFAULT '{}',
      summary jsonb NOT NULL DEFAULT '{}',
      failure text,
      lease_token uuid,
      locked_until timestamptz,
      attempts integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id)
    )`.execute(db);
  await sql`CREATE INDEX imports_created_idx ON imports (store_id, created_at, id)`.execute(db);
  // The worker's queue: the few unfinished jobs of every store (the claim sorts them, oldest first).
  await sql`
    CREATE INDEX imports_unfinished_idx ON imports (store_id, created_at)
    WHERE status IN ('queued', 'checking', 'running')`.execute(db);

  await sql`
    CREATE TABLE import_chunks (
      store_id uuid NOT NULL,
      import_id uuid NOT NULL,
      seq integer NOT NULL CHECK (seq >= 0),
      data bytea NOT NULL CHECK (length(data) <= 1048576),
      PRIMARY KEY (store_id, import_id, seq),
      FOREIGN KEY (store_id, import_id) REFERENCES imports (store_id, id) ON DELETE CASCADE
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE import_chunks`.execute(db);
  await sql`DROP TABLE imports`.execute(db);
}
