import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';

/**
 * Reading an import's CSV file (decision `csv-imports`) with csv-parse, streamed: the records as
 * arrays of cells, each with its row number as a spreadsheet shows it (the header is row 1; a
 * record whose quoted cell spans lines is still one row). Blank lines are rows too, with no cells
 * to read. A byte-order mark is dropped.
 */

export interface CsvRow {
  row: number;
  cells: string[];
}

/** The file is not CSV that can be read (an unclosed quote, a record beyond the size bound). */
export class CsvFileError extends Error {}

/** The most characters one record may hold: a malformed quote cannot make the parser hold the whole file. */
const MAX_RECORD_CHARS = 1_000_000;

export async function* csvRows(source: AsyncIterable<Uint8Array>): AsyncGenerator<CsvRow> {
  const parser = Readable.from(source).pipe(
    parse({
      bom: true,
      relax_column_count: true,
      skip_empty_lines: false,
      max_record_size: MAX_RECORD_CHARS,
    }),
  );
  let row = 0;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      row++;
      yield { row, cells };
    }
  } catch (error) {
    if (error instanceof CsvError)
      throw new CsvFileError(`The file is not valid CSV after row ${row}: ${error.message}`);
    throw error;
  } finally {
    parser.destroy();
  }
}

/** Whether a row has nothing in it (a blank line, or only empty cells). */
export function isBlank(cells: readonly string[]): boolean {
  return cells.every((cell) => cell.trim() === '');
}

/** The columns of a header row, looked up by name whatever their case and surrounding spaces. */
export class Header {
  readonly names: readonly string[];
  readonly #index = new Map<string, number>();

  constructor(cells: readonly string[]) {
    this.names = cells.map((cell) => cell.trim());
    this.names.forEach((name, i) => {
      const key = name.toLowerCase();
      if (name !== '' && !this.#index.has(key)) this.#index.set(key, i);
    });
  }

  has(name: string): boolean {
    return this.#index.has(name.toLowerCase());
  }

  /** The cell of `name` in `cells`, trimmed; undefined when the file has no such column. */
  cell(cells: readonly string[], name: string): string | undefined {
    const i = this.#index.get(name.toLowerCase());
    return i === undefined ? undefined : (cells[i] ?? '').trim();
  }

  /** The same, without trimming (a description keeps its own spacing). */
  raw(cells: readonly string[], name: string): string | undefined {
    const i = this.#index.get(name.toLowerCase());
    return i === undefined ? undefined : (cells[i] ?? '');
  }

  /** The columns this header has that `known` does not accept (matched as `has` does). */
  unknown(known: (name: string) => boolean): string[] {
    return this.names.filter((name) => name !== '' && !known(name));
  }
}
