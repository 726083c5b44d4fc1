import { byCreated } from '../db/keyset.ts';
import type { ServiceDeps } from '../db/service-deps.ts';
import type { ListPage } from '../lib/cursors.ts';
import { notFound } from '../lib/errors.ts';
import type { ImportListItem, ImportView } from './imports.schemas.ts';
import { findImport, importsQuery, insertImport } from './imports.repository.ts';
import type { ImportKind, ImportRow } from './imports.tables.ts';

/**
 * Imports as staff see them (decision `csv-imports`): an upload becomes a queued job that a worker
 * runs (imports.runner.ts); staff follow it by reading it.
 */

export interface NewImport {
  kind: ImportKind;
  dryRun: boolean;
  fileName: string | null;
  file: Buffer;
}

export async function createImport(
  deps: Pick<ServiceDeps, 'db'> & { wake: () => void },
  storeId: string,
  input: NewImport,
): Promise<ImportView> {
  const row = await insertImport(deps.db, { storeId, ...input });
  deps.wake();
  return importView(row);
}

export async function getImport(
  deps: Pick<ServiceDeps, 'db'>,
  storeId: string,
  id: string,
): Promise<ImportView> {
  const row = await findImport(deps.db, storeId, id);
  if (!row) throw notFound('No import with that id in this store.');
  return importView(row);
}

export function listImports(
  deps: Pick<ServiceDeps, 'db' | 'cursors'>,
  storeId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<ListPage<ImportListItem>> {
  return byCreated(
    deps.cursors,
    `${storeId}:imports`,
    importsQuery(deps.db, storeId),
    page,
    listItem,
    '',
    true,
  );
}

function listItem(row: ImportRow): ImportListItem {
  return {
    id: row.id,
    kind: row.kind,
    dryRun: row.dry_run,
    status: row.status,
    fileName: row.file_name,
    progress: { rows: row.rows, done: row.done },
    errorCount: row.error_count,
    ignoredColumns: row.ignored_columns,
    summary: {
      created: row.summary.created ?? 0,
      updated: row.summary.updated ?? 0,
      unchanged: row.summary.unchanged ?? 0,
    },
    failure: row.failure,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
}

export function importView(row: ImportRow): ImportView {
  return { ...listItem(row), errors: row.errors };
}
