import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** What a spool keeps in memory before it moves to a file. */
const IN_MEMORY = 8 * 1024 * 1024;

/**
 * One table's JSON lines on their way into the archive. A tar entry announces its size before its
 * content, and a table's size is known only once it has been read, so the lines wait here: in
 * memory up to 8 MiB, beyond that in a temporary file beside the archive (one table at a time).
 * The SHA-256 of the content is computed as it is written.
 */
export class Spool {
  readonly #tempPath: string;
  readonly #hash = createHash('sha256');
  #chunks: Buffer[] = [];
  #size = 0;
  #file: fs.promises.FileHandle | null = null;

  constructor(tempPath: string) {
    this.#tempPath = tempPath;
  }

  get size(): number {
    return this.#size;
  }

  async write(chunk: Buffer): Promise<void> {
    this.#hash.update(chunk);
    this.#size += chunk.length;
    if (this.#file) {
      await this.#file.write(chunk);
      return;
    }
    this.#chunks.push(chunk);
    if (this.#size > IN_MEMORY) {
      this.#file = await fs.promises.open(this.#tempPath, 'w', 0o600);
      for (const held of this.#chunks) await this.#file.write(held);
      this.#chunks = [];
    }
  }

  /** The content's SHA-256 (hex); call once, after the last write. */
  digest(): string {
    return this.#hash.digest('hex');
  }

  /** The content, from memory or from the file. */
  async *read(): AsyncGenerator<Buffer> {
    if (!this.#file) {
      yield* this.#chunks;
      return;
    }
    await this.#file.close();
    this.#file = null;
    for await (const chunk of fs.createReadStream(this.#tempPath, { highWaterMark: 1024 * 1024 }))
      yield chunk as Buffer;
  }

  /** Frees the memory and removes the file. */
  async dispose(): Promise<void> {
    this.#chunks = [];
    await this.#file?.close();
    this.#file = null;
    await fs.promises.rm(this.#tempPath, { force: true });
  }
}
