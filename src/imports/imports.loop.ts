import type { ServiceDeps } from '../db/service-deps.ts';
import type { Log } from '../lib/log.ts';
import type { MediaDeps } from '../media/media.service.ts';
import { GuardedDownloader } from '../webhooks/guarded-download.ts';
import type { WorkerLoop } from '../workers/runner.ts';
import { ImageSource } from './image-source.ts';
import type { ImportKindHandler, Unit } from './import-kind.ts';
import { runNextImport } from './imports.runner.ts';
import type { ImportKind } from './imports.tables.ts';
import { productContext } from './products.import.ts';
import { productsImport } from './products.kind.ts';
import { customersImport } from './customers.kind.ts';
import { inventoryImport } from './inventory.kind.ts';

export interface ImportsLoopDeps extends Pick<ServiceDeps, 'db' | 'clock'> {
  log: Log;
  media: Pick<MediaDeps, 'storage' | 'limiter' | 'maxPixels' | 'maxBytes'>;
  settings: { leaseMs: number; maxImages: number; fetchTimeoutMs: number; allowHttp: boolean };
}

/** The import worker (decision `csv-imports`): runs queued imports one at a time, any number of processes sharing the queue. */
export function importsLoop(deps: ImportsLoopDeps): WorkerLoop {
  const handlers = async (kind: ImportKind, storeId: string): Promise<ImportKindHandler<Unit>> => {
    switch (kind) {
      case 'products': {
        const downloader = new GuardedDownloader({
          allowHttp: deps.settings.allowHttp,
          timeoutMs: deps.settings.fetchTimeoutMs,
        });
        const images = new ImageSource(
          { db: deps.db, ...deps.media },
          storeId,
          downloader,
          deps.settings.maxImages,
        );
        const handler = productsImport(deps, storeId, await productContext(deps, storeId), images);
        return { ...handler, close: () => downloader.close() };
      }
      case 'customers':
        return customersImport(deps, storeId);
      case 'inventory':
        return inventoryImport(deps, storeId);
    }
  };
  return {
    name: 'imports',
    intervalMs: 1000,
    async run(signal) {
      while (
        !signal.aborted &&
        (await runNextImport({ ...deps, leaseMs: deps.settings.leaseMs, handlers }, signal))
      );
    },
  };
}
