import { sql, type Kysely } from 'kysely';

/**
 * Email sender identity (decisions `platform-and-store-mail` and `sending-domain-verification`): sending domains, their five DNS records with a status
 * each, and one DKIM key per token (private keys encrypted at rest).
 *
 * `sending_domain_claims` is global on purpose: its primary key on the normalised domain name is
 * the constraint that lets exactly one store own a domain, whichever process registers it first.
 * The tenant tables reference the claim by (store_id, domain), so a store's domain row can only
 * name a domain that store claimed, and deleting the claim deletes the domain, its records and keys.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE sending_domain_claims (
      domain text PRIMARY KEY CHECK (domain = lower(domain) AND length(domain) BETWEEN 3 AND 253),
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      UNIQUE (store_id, domain)
    )`.execute(db);

  await sql`
    CREATE TABLE sending_domains (
      store_id uuid NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      domain text NOT NULL,
      from_local_part text NOT NULL CHECK (length(from_local_part) BETWEEN 1 AND 64),
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified', 'failed')),
      window_started_at timestamptz(3) NOT NULL,
      next_check_at timestamptz(3),
      last_checked_at timestamptz(3),
      verified_at timestamptz(3),
      failed_at timestamptz(3),
      records_missing_since timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      CONSTRAINT sending_domains_one_per_store UNIQUE (store_id),
      FOREIGN KEY (store_id, domain) REFERENCES sending_domain_claims (store_id, domain) ON DELETE CASCADE,
      CHECK ((status = 'verified') = (verified_at IS NOT NULL)),
      CHECK ((status = 'failed') = (failed_at IS NOT NULL)),
      CHECK (status = 'verified' OR records_missing_since IS NULL)
    )`.execute(db);

  await sql`
    CREATE TABLE sending_domain_records (
      store_id uuid NOT NULL,
      domain_id uuid NOT NULL,
      position smallint NOT NULL CHECK (position BETWEEN 0 AND 4),
      type text NOT NULL CHECK (type IN ('CNAME', 'MX', 'TXT')),
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 253),
      value text NOT NULL CHECK (length(value) BETWEEN 1 AND 1000),
      priority integer CHECK (priority BETWEEN 0 AND 65535),
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified', 'failed')),
      detail text CHECK (length(detail) <= 1000),
      checked_at timestamptz(3),
      PRIMARY KEY (store_id, domain_id, position),
      FOREIGN KEY (store_id, domain_id) REFERENCES sending_domains (store_id, id) ON DELETE CASCADE,
      CHECK ((type = 'MX') = (priority IS NOT NULL))
    )`.execute(db);

  await sql`
    CREATE TABLE dkim_keys (
      store_id uuid NOT NULL,
      domain_id uuid NOT NULL,
      token text NOT NULL CHECK (token ~ '^[a-z0-9]{16,63}$'),
      position smallint NOT NULL CHECK (position BETWEEN 0 AND 2),
      public_key text NOT NULL,
      private_key_ciphertext text NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, domain_id, position),
      UNIQUE (store_id, token),
      FOREIGN KEY (store_id, domain_id) REFERENCES sending_domains (store_id, id) ON DELETE CASCADE
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['dkim_keys', 'sending_domain_records', 'sending_domains', 'sending_domain_claims']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
