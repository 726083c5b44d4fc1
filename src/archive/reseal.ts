import { resealColumns, SecretUnreadableError, type Keyring, type TextRow } from '../lib/keyring.ts';
import { SEALED_COLUMNS } from '../secrets/rotate.ts';
import { ArchiveError } from './archive.format.ts';
import type { CatalogTable } from './tables.ts';

/** Changes one line of a table file; counts the values it re-sealed. */
export interface LineResealer {
  (line: string): string;
  readonly resealed: number;
}

/**
 * What re-seals the sealed values of a table's lines on their way into an archive (decision
 * `archive-secrets`): each value is opened with the source's keyring (`from`) and sealed again
 * under the archive key (`to`), bound to the same row; a value the archive key sealed already, and
 * a line without sealed values, pass as they are. Null for a table without sealed values.
 */
export function lineResealer(table: CatalogTable, from: Keyring, to: Keyring): LineResealer | null {
  const specs = SEALED_COLUMNS.filter((spec) => spec.table === table.name);
  if (specs.length === 0) return null;
  const names = table.columns.filter((column) => !column.generated).map((column) => column.name);
  for (const spec of specs)
    for (const column of spec.columns)
      if (!names.includes(column)) throw new Error(`${spec.what}: ${table.name} has no column ${column}`);
  let resealed = 0;
  const reseal = (line: string): string => {
    const values = JSON.parse(line) as (string | null)[];
    const row: TextRow = {};
    names.forEach((name, i) => (row[name] = values[i] ?? null));
    let changed = 0;
    try {
      for (const spec of specs) changed += resealColumns(spec, row, from, to);
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      throw new ArchiveError(
        `${error.message.replace(/\. SECRET_KEY changed\?.*$/s, '')}, so the archive could not carry it. ` +
          'Run the export with the SECRET_KEY (and SECRET_KEY_PREVIOUS) the service runs with; `storefront secrets check` lists what cannot be decrypted.',
      );
    }
    resealed += changed;
    return changed === 0 ? line : JSON.stringify(names.map((name) => row[name]));
  };
  return Object.defineProperty(reseal, 'resealed', { get: () => resealed }) as LineResealer;
}
