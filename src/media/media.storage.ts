import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Where media bytes are kept (decision `media-uploads`), behind one small interface so another store of bytes can take
 * its place. Keys are `<storeId>/<sha256>.<ext>` for an upload and `<storeId>/<sha256>.w<width>.<ext>`
 * for a resized copy: a key's bytes never change once written, so a `put` of a key that exists may
 * simply write the same bytes again.
 *
 * Built: `LocalMediaStorage` (MEDIA_STORAGE=local), files under `DATA_DIR/media`. Not built: an
 * S3-compatible adapter (put → PutObject, get and open → GetObject, has → HeadObject); the service
 * would then run several API processes on one bucket, which the local adapter can do only on a
 * shared file system.
 */
export interface MediaStorage {
  /** Keeps `bytes` under `key` (all or nothing: a reader never sees half a file). */
  put(key: string, bytes: Buffer): Promise<void>;
  /** The bytes under `key`, or null when there are none. */
  get(key: string): Promise<Buffer | null>;
  /** The bytes under `key` as a stream with their length (for answering), or null. */
  open(key: string): Promise<{ stream: Readable; bytes: number } | null>;
  /** Whether `key` has bytes. */
  has(key: string): Promise<boolean>;
}

/** What a key may be: a store id, a hash, an optional width, an extension. Nothing else reaches a path. */
const KEY =
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/[0-9a-f]{64}(\.w[0-9]{1,5})?\.(jpg|png|webp|avif|gif)$/;

const isMissing = (error: unknown): boolean => (error as { code?: string }).code === 'ENOENT';

/** Media as files: `<dir>/<storeId>/<file>`, written to a temporary name and renamed into place. */
export class LocalMediaStorage implements MediaStorage {
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = dir;
  }

  #path(key: string): string {
    if (!KEY.test(key)) throw new Error(`Not a media storage key: ${JSON.stringify(key)}`);
    return path.join(this.#dir, key);
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const file = this.#path(key);
    await mkdir(path.dirname(file), { recursive: true });
    const temp = `${file}.${randomUUID()}.tmp`;
    try {
      await writeFile(temp, bytes);
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.#path(key));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async open(key: string): Promise<{ stream: Readable; bytes: number } | null> {
    let handle;
    try {
      handle = await open(this.#path(key), 'r');
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    try {
      const { size } = await handle.stat();
      return { stream: handle.createReadStream(), bytes: size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async has(key: string): Promise<boolean> {
    try {
      return (await stat(this.#path(key))).isFile();
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }
}
