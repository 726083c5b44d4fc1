import type { Generated } from 'kysely';
import type { CreatedAt, UpdatedAt, Json } from '../db/tables.ts';

export type SandboxIntentStatus =
  'requires_payment_method' | 'processing' | 'succeeded' | 'failed' | 'canceled';

export interface SandboxIntentTable {
  ref: string;
  client_secret_hash: string;
  amount: number;
  currency: string;
  status: SandboxIntentStatus;
  refunded_amount: Generated<number>;
  metadata: Json<Record<string, string>>;
  idempotency_key: string | null;
  /** The test card of the confirmation that moved it last (a retry with it is answered alike). */
  confirmed_method: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** Refunds the sandbox provider made (global, like its intents): what `retrieveRefund` reads. */
export interface SandboxRefundTable {
  ref: string;
  intent_ref: string;
  amount: number;
  status: 'pending' | 'succeeded' | 'failed';
  idempotency_key: string | null;
  created_at: CreatedAt;
}

/**
 * The sandbox's webhooks (its outbox): written with the outcome they report, delivered by any
 * process. `next_attempt_at` is when the next attempt is due (a lease while one runs); NULL once
 * delivered or given up.
 */
export interface SandboxWebhookTable {
  id: string;
  intent_ref: string;
  body: string;
  attempts: Generated<number>;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  last_error: string | null;
  created_at: CreatedAt;
}

/**
 * The built-in sandbox provider's own records. It stands in for an external provider, whose
 * references are global, so these tables are global (keyed by ref).
 */
export interface SandboxTables {
  sandbox_intents: SandboxIntentTable;
  sandbox_refunds: SandboxRefundTable;
  sandbox_webhooks: SandboxWebhookTable;
}

declare module '../db/tables.ts' {
  interface Database extends SandboxTables {}
}
