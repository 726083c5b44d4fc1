import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { recordEvent } from '../events/events.ts';
import type { Clock } from '../lib/clock.ts';
import type { Log } from '../lib/log.ts';
import { CsvFileError, csvRows, Header, type CsvRow } from './csv-rows.ts';
import type { ImportKindHandler, Unit } from './import-kind.ts';
import {
  analyzeTables,
  claimImport,
  fileOf,
  finishImport,
  saveErrors,
  saveProgress,
} from './imports.repository.ts';
import type { ImportKind, ImportRow, ImportSummary, RowError } from './imports.tables.ts';

/**
 * Runs imports (decision `csv-imports`): a worker claims the oldest unfinished import under a
 * lease, reads its file whole to check every row (`checking`; nothing is written), and then, unless
 * it is a dry run or a row is bad, applies it unit by unit in batches (`running`), recording after
 * each batch how many rows are done. A worker that dies mid-import loses its lease; the next one
 * checks the file again and carries on after the last batch recorded (the units of that batch that
 * were written already are found as they are and left alone: every kind's write is idempotent).
 */

export interface RunnerDeps {
  db: Kysely<Database>;
  clock: Clock;
  log: Log;
  /** How long a claimed import is this worker's without a sign of progress (IMPORT_LEASE). */
  leaseMs: number;
  /** The handler of each kind, for one store's import. */
  handlers(kind: ImportKind, storeId: string): Promise<ImportKindHandler<Unit>>;
}

/** Units applied between two records of progress. */
const BATCH = 50;
/**
 * Units applied before the first refresh of the planner's statistics; each next one comes after
 * twice as many (decision `analyze-during-import`).
 */
const FIRST_ANALYZE = 500;

/** Claims one import and runs it to its end (or until `signal`, or until its lease is lost). */
export async function runNextImport(deps: RunnerDeps, signal: AbortSignal): Promise<boolean> {
  const token = randomUUID();
  const now = deps.clock.now();
  const job = await claimImport(deps.db, now, new Date(now.getTime() + deps.leaseMs), token);
  if (!job) return false;
  await new ImportRun(deps, job, token, signal).run();
  return true;
}

class ImportRun {
  readonly #deps: RunnerDeps;
  readonly #job: ImportRow;
  readonly #key: { storeId: string; id: string; token: string };
  readonly #signal: AbortSignal;
  readonly #errors: RowError[] = [];
  #errorCount = 0;
  #lastRow = 1;

  constructor(deps: RunnerDeps, job: ImportRow, token: string, signal: AbortSignal) {
    this.#deps = deps;
    this.#job = job;
    this.#key = { storeId: job.store_id, id: job.id, token };
    this.#signal = signal;
  }

  async run(): Promise<void> {
    const handler = await this.#deps.handlers(this.#job.kind, this.#job.store_id);
    try {
      const opened = await this.#open();
      if (!opened) return this.#fail('The file is empty: it needs a header row and rows under it.', []);
      const columns = handler.columns(opened.header);
      if (columns.missing.length > 0)
        return this.#fail(
          `The file lacks the column${columns.missing.length > 1 ? 's' : ''} ${columns.missing.join(', ')} that a ${this.#job.kind} import needs.`,
          columns.ignored,
        );
      const rows = await this.#check(handler, opened.header, opened.rows);
      if (rows === null) return;
      if (this.#errorCount > 0 || this.#job.dry_run)
        return this.#end(
          this.#errorCount > 0 && !this.#job.dry_run ? 'failed' : 'completed',
          rows,
          {},
          columns.ignored,
        );
      const summary = await this.#apply(handler, rows);
      if (summary) await this.#end('completed', rows, summary, columns.ignored);
    } catch (error) {
      if (error instanceof CsvFileError) return this.#fail(error.message, []);
      throw error;
    } finally {
      await handler.close?.();
    }
  }

  /** The file's header and its data rows, counted as they pass. */
  async #open(): Promise<{ header: Header; rows: AsyncIterable<CsvRow> } | null> {
    const stream = csvRows(fileOf(this.#deps.db, this.#job.store_id, this.#job.id))[Symbol.asyncIterator]();
    const first = await stream.next();
    if (first.done) return null;
    const header = new Header(first.value.cells);
    if (header.names.every((name) => name === '')) return null;
    const counted = async function* (this: ImportRun): AsyncGenerator<CsvRow> {
      for (let next = await stream.next(); !next.done; next = await stream.next()) {
        this.#lastRow = next.value.row;
        yield next.value;
      }
    }.call(this);
    return { header, rows: counted };
  }

  /** Checks the whole file; the number of data rows, or null when the lease was lost. */
  async #check(handler: ImportKindHandler<Unit>, header: Header, rows: AsyncIterable<CsvRow>) {
    if (!(await this.#progress('checking', 0))) return null;
    let batch: Unit[] = [];
    const flush = async () => {
      await handler.check(batch, this.#errors);
      batch = [];
      this.#errorCount = this.#errors.length;
      return this.#progress('checking', 0);
    };
    for await (const unit of handler.units(rows, header, this.#errors)) {
      batch.push(unit);
      if (batch.length >= BATCH * 4 && !(await flush())) return null;
      if (this.#signal.aborted) return null;
    }
    if (!(await flush())) return null;
    this.#errors.sort((a, b) => a.row - b.row);
    return this.#lastRow - 1;
  }

  /** Applies the units after those already done; the summary, or null when stopped. */
  async #apply(handler: ImportKindHandler<Unit>, rows: number): Promise<ImportSummary | null> {
    const opened = await this.#open();
    if (!opened) return null;
    const summary: ImportSummary = { created: 0, updated: 0, unchanged: 0, ...this.#job.summary };
    const resumed = this.#job.status === 'running';
    const done = resumed ? this.#job.done : 0;
    // What the batches already done left out stays said (a unit applied again says it again: kept once).
    if (resumed) this.#note(this.#job.errors.filter((kept) => !this.#errors.some((e) => sameError(e, kept))));
    if (!(await this.#progress('running', done, rows, summary))) return null;
    let applied = 0;
    let analyzeAt = FIRST_ANALYZE;
    const ignore: RowError[] = [];
    for await (const unit of handler.units(opened.rows, opened.header, ignore)) {
      if (unit.lastRow <= done + 1) continue;
      const result = await handler.apply(unit);
      if ('errors' in result) this.#note(result.errors);
      else {
        summary[result.outcome] = (summary[result.outcome] ?? 0) + 1;
        this.#note(result.warnings);
      }
      if (++applied % BATCH === 0) {
        if (!(await this.#progress('running', unit.lastRow - 1, rows, summary))) return null;
        if (this.#signal.aborted) return null;
      }
      if (applied === analyzeAt) {
        await this.#analyze(handler);
        analyzeAt *= 2;
      }
    }
    if (applied >= BATCH) await this.#analyze(handler);
    return summary;
  }

  /**
   * Refreshes the statistics of the tables the import grows. The plans of the worker's own long
   * session (its prepared statements, the search triggers' PL/pgSQL) were made for the tables as
   * they were when the import began, often nearly empty: without this, each product's insert
   * read the whole products table by the time it held 20,000 (decision `analyze-during-import`).
   */
  async #analyze(handler: ImportKindHandler<Unit>) {
    const started = performance.now();
    try {
      await analyzeTables(this.#deps.db, handler.grows);
      this.#deps.log.debug(
        { importId: this.#job.id, tables: handler.grows, ms: Math.round(performance.now() - started) },
        'import: statistics refreshed',
      );
    } catch (error) {
      // Only a role that does not own the tables is refused; the import goes on, slower.
      this.#deps.log.warn(
        { importId: this.#job.id, err: (error as Error).message },
        'import: statistics not refreshed',
      );
    }
  }

  #note(errors: readonly RowError[]) {
    const fresh = errors.filter((error) => !this.#errors.some((known) => sameError(known, error)));
    this.#errors.push(...fresh);
    this.#errorCount += fresh.length;
  }

  async #progress(status: 'checking' | 'running', done: number, rows?: number, summary?: ImportSummary) {
    const now = this.#deps.clock.now();
    const held = await saveProgress(
      this.#deps.db,
      this.#key,
      { status, done, ...(rows !== undefined ? { rows } : {}), ...(summary ? { summary } : {}) },
      new Date(now.getTime() + this.#deps.leaseMs),
    );
    if (held && this.#errors.length > 0)
      await saveErrors(this.#deps.db, this.#key, this.#errors, this.#errorCount);
    if (!held) this.#deps.log.warn({ importId: this.#job.id }, 'import lease lost: another worker has it');
    return held;
  }

  #fail(failure: string, ignored: readonly string[]) {
    return this.#end('failed', null, {}, ignored, failure);
  }

  async #end(
    status: 'completed' | 'failed',
    rows: number | null,
    summary: ImportSummary,
    ignored: readonly string[],
    failure: string | null = null,
  ): Promise<void> {
    const now = this.#deps.clock.now();
    const job = this.#job;
    const done = status === 'completed' && !job.dry_run && rows !== null ? rows : 0;
    await finishImport(
      this.#deps.db,
      this.#key,
      {
        status,
        done,
        rows,
        summary,
        errors: this.#errors,
        errorCount: this.#errorCount,
        ignoredColumns: ignored,
        failure,
        now,
      },
      status === 'completed'
        ? (trx) =>
            recordEvent(trx, {
              storeId: job.store_id,
              type: 'import.completed',
              resource: `import:${job.id}`,
              data: {
                importId: job.id,
                kind: job.kind,
                dryRun: job.dry_run,
                rows: rows ?? 0,
                errors: this.#errorCount,
                ...summary,
              },
            })
        : undefined,
    );
  }
}

const sameError = (a: RowError, b: RowError) =>
  a.row === b.row && a.column === b.column && a.detail === b.detail;
