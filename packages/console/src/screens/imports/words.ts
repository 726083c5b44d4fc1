/** How the Import screens say an import's kind and rows. */
import type { ImportKind, ImportListItem } from '../../data/imports.ts';

export const KIND_LABELS: Record<ImportKind, string> = {
  products: 'Products',
  customers: 'Customers',
  inventory: 'Inventory',
};

/** The rows of the file once checked ("7"), written so far while running ("3 of 7"); "—" before. */
export function rowsText(job: Pick<ImportListItem, 'status' | 'progress'>): string {
  const { rows, done } = job.progress;
  if (rows === null) return '—';
  return job.status === 'running' ? `${done} of ${rows}` : String(rows);
}

/** "1 row" / "3 rows". */
export function rowCount(n: number): string {
  return `${n} row${n === 1 ? '' : 's'}`;
}
