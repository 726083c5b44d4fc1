import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { mediaAfter } from './media.repository.ts';
import { mediaUrl } from './media.service.ts';
import type { MediaStorage } from './media.storage.ts';

/** How many uploads the database lists, and how many of their files the storage lacks. */
export interface MediaInventory {
  listed: number;
  missing: number;
}

/**
 * Counts the uploads whose original file is not in `storage` (after `storefront import`, which
 * carries the rows but not the files, decision `archive-media-apart`): every row is looked up, a
 * page at a time.
 */
export async function missingMediaFiles(deps: {
  db: Kysely<Database>;
  storage: MediaStorage;
}): Promise<MediaInventory> {
  const inventory: MediaInventory = { listed: 0, missing: 0 };
  let after: { store_id: string; id: string } | undefined;
  for (;;) {
    const rows = await mediaAfter(deps.db, after, 500);
    for (const row of rows) {
      inventory.listed += 1;
      if (!(await deps.storage.has(mediaUrl(row).slice('/media/'.length)))) inventory.missing += 1;
    }
    if (rows.length < 500) return inventory;
    after = rows.at(-1);
  }
}
