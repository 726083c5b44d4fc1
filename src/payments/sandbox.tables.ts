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
 * The built-in sandbox provider's own records. It stands in for an external provider, whose
 * references are global, so these tables are global (keyed by ref).
 */
export interface SandboxTables {
  sandbox_intents: SandboxIntentTable;
  sandbox_refunds: SandboxRefundTable;
}

declare module '../db/tables.ts' {
  interface Database extends SandboxTables {}
}
