import { sql, type Kysely } from 'kysely';

/**
 * Gift cards and their ledger (decision `gift-card-ledger`):
 *
 * - `gift_cards`: a store's cards. The code is never stored: only its SHA-256 (`code_hash`, unique
 *   in the store, how a code is looked up) and its last 4 characters (`last4`, what staff and
 *   buyers see). `balance` is what the card can still pay, cached beside the ledger it sums and
 *   changed only by the statements that append to the ledger; `CHECK (balance >= 0)` and the
 *   conditional UPDATE that reserves (`WHERE balance >= amount`) keep it from ever going below 0.
 *   A customer that is erased leaves the card (its money stays), unlinked (`SET NULL (customer_id)`).
 * - `gift_card_ledger`: append-only entries. `amount` is the entry's signed effect on the balance,
 *   `held` its effect on what an order holds on the card: issue (+, 0), reserve (−, +),
 *   commit (0, −: the hold becomes spent), release (+, −), refund (+, 0), adjust (±, 0). So the
 *   balance is the sum of `amount`, what an order holds the sum of its `held`, and what it spent
 *   the sum of its commits' `held` less its refunds.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE gift_cards (
      store_id uuid NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      code_hash text NOT NULL CHECK (code_hash ~ '^[0-9a-f]{64}$'),
      last4 text NOT NULL CHECK (last4 ~ '^[2-9A-HJ-NP-Z]{4}$'),
      currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
      initial_amount bigint NOT NULL CHECK (initial_amount > 0),
      balance bigint NOT NULL CHECK (balance >= 0),
      expires_at timestamptz,
      note text CHECK (length(note) <= 500),
      customer_id uuid,
      disabled boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      CONSTRAINT gift_cards_customer_fkey FOREIGN KEY (store_id, customer_id)
        REFERENCES customers (store_id, id) ON DELETE SET NULL (customer_id)
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX gift_cards_code_idx ON gift_cards (store_id, code_hash)`.execute(db);
  await sql`CREATE INDEX gift_cards_created_idx ON gift_cards (store_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX gift_cards_last4_idx ON gift_cards (store_id, last4)`.execute(db);
  await sql`
    CREATE INDEX gift_cards_customer_idx ON gift_cards (store_id, customer_id)
    WHERE customer_id IS NOT NULL`.execute(db);

  await sql`
    CREATE TABLE gift_card_ledger (
      store_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      gift_card_id uuid NOT NULL,
      kind text NOT NULL CHECK (kind IN ('issue', 'reserve', 'commit', 'release', 'refund', 'adjust')),
      amount bigint NOT NULL,
      held bigint NOT NULL DEFAULT 0,
      order_id uuid,
      reason text CHECK (length(reason) <= 200),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, id),
      FOREIGN KEY (store_id, gift_card_id) REFERENCES gift_cards (store_id, id) ON DELETE CASCADE,
      CONSTRAINT gift_card_ledger_signs_check CHECK (
        (kind = 'issue' AND amount > 0 AND held = 0) OR
        (kind = 'reserve' AND amount < 0 AND held = -amount AND order_id IS NOT NULL) OR
        (kind = 'commit' AND amount = 0 AND held < 0 AND order_id IS NOT NULL) OR
        (kind = 'release' AND amount > 0 AND held = -amount AND order_id IS NOT NULL) OR
        (kind = 'refund' AND amount > 0 AND held = 0 AND order_id IS NOT NULL) OR
        (kind = 'adjust' AND amount <> 0 AND held = 0 AND reason IS NOT NULL))
    )`.execute(db);
  await sql`
    CREATE INDEX gift_card_ledger_card_idx ON gift_card_ledger (store_id, gift_card_id, created_at, id)`.execute(
    db,
  );
  await sql`
    CREATE INDEX gift_card_ledger_order_idx ON gift_card_ledger (store_id, order_id)
    WHERE order_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['gift_card_ledger', 'gift_cards'])
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
}
