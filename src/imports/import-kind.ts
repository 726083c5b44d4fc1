import type { Database } from '../db/tables.ts';
import type { CsvRow, Header } from './csv-rows.ts';
import type { ImportSummary, RowError } from './imports.tables.ts';

/**
 * What one kind of import (products, customers, inventory) knows; the runner (imports.runner.ts)
 * does the rest the same way for each: reading the file, checking it whole, applying it in
 * batches from where it stands, leases and progress.
 *
 * A unit is what is applied at once: a product (its rows), a customer or a stock count (one row).
 */
export interface Unit {
  /** Its first and last rows, as a spreadsheet numbers them. */
  firstRow: number;
  lastRow: number;
}

export interface ImportKindHandler<U extends Unit> {
  /**
   * The tables its units grow, whose planner statistics the runner refreshes as they grow
   * (decision `analyze-during-import`).
   */
  grows: readonly (keyof Database)[];
  /** The header's columns it does not read (listed, never refused), or the required ones missing. */
  columns(header: Header): { ignored: string[]; missing: string[] };
  /**
   * The file's units in order, each read from its rows; a row or unit that cannot be read adds its
   * errors to `errors` and yields nothing. Checks across the file (a handle, SKU or email twice)
   * are made here too.
   */
  units(rows: AsyncIterable<CsvRow>, header: Header, errors: RowError[]): AsyncIterable<U>;
  /** The checks that need the store, for a batch of units read without errors. */
  check(units: readonly U[], errors: RowError[]): Promise<void>;
  /** Writes one unit: what it did (and what it left out, said as row errors), or why it could not. */
  apply(unit: U): Promise<{ outcome: keyof ImportSummary; warnings: RowError[] } | { errors: RowError[] }>;
  /** Lets go of what it holds (an image fetcher's connections), once the run ends. */
  close?(): Promise<void>;
}
