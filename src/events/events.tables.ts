import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Json } from '../db/tables.ts';

export interface EventTable {
  store_id: string;
  id: Generated<string>;
  /** Commit-independent tiebreaker for ordering within a store. */
  seq: Generated<number>;
  type: string;
  /** The resource the event is about (its ordering key), declared by the emitter; null on events recorded before 0012. */
  resource_key: ColumnType<string | null, string, never>;
  data: Json<Record<string, unknown>>;
  created_at: CreatedAt;
  /** Set when the relay has fanned the event out to delivery rows. */
  dispatched_at: ColumnType<Date | null, never, Date | string | null>;
  /** Lease: a relay that claimed the row owns it until then. */
  locked_until: ColumnType<Date | null, never, Date | string | null>;
  claim_count: Generated<number>;
}

/** The outbox of domain events. */
export interface EventTables {
  events: EventTable;
}

declare module '../db/tables.ts' {
  interface Database extends EventTables {}
}
