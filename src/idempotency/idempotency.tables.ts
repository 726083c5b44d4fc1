import type { Selectable } from 'kysely';
import type { CreatedAt, NullableTime } from '../db/tables.ts';

export interface IdempotencyKeyTable {
  store_id: string;
  route: string;
  key: string;
  request_hash: string;
  status: 'in_progress' | 'done';
  locked_until: NullableTime;
  /** Fences the current holder of an in-progress key: only it may store the answer (decision `idempotency-lease`). */
  lease_token: string | null;
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
  created_at: CreatedAt;
}
export type IdempotencyKeyRow = Selectable<IdempotencyKeyTable>;

/** Idempotency keys with their stored answers (decisions `idempotency-keys` and `checkout-after-a-crash`). */
export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeyTable;
}

declare module '../db/tables.ts' {
  interface Database extends IdempotencyTables {}
}
