import { once } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * A small tar (POSIX ustar) writer and reader for the archives of `storefront export` (decision
 * `archive-format`): regular files only, written and read as streams, so an entry of any size passes
 * through a fixed amount of memory. Sizes of 8 GiB and more use the base-256 size field GNU tar and
 * bsdtar read. What is written here unpacks with `tar xzf`.
 */

const BLOCK = 512;
const ZERO_BLOCK = Buffer.alloc(BLOCK);
/** The largest size the 11 octal digits of a ustar header hold. */
const MAX_OCTAL_SIZE = 8 ** 11 - 1;

export class TarError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TarError';
  }
}

/** A tar stream whose entries together are larger than the reader was told to read. */
export class TarTooLargeError extends TarError {
  readonly limit: number;
  constructor(limit: number) {
    super(`the entries are larger than ${limit} bytes together`);
    this.name = 'TarTooLargeError';
    this.limit = limit;
  }
}

/** Writes a chunk, waiting for the stream to drain when its buffer is full. */
export async function writeChunk(sink: Writable, chunk: Buffer): Promise<void> {
  if (!sink.write(chunk)) await once(sink, 'drain');
}

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, '0')}\0`;
}

function header(name: string, size: number, mtime: Date): Buffer {
  const block = Buffer.alloc(BLOCK);
  const nameBytes = Buffer.from(name, 'utf8');
  if (nameBytes.length > 100) throw new TarError(`entry name too long for ustar: ${name}`);
  nameBytes.copy(block, 0);
  block.write(octal(0o644, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  if (size <= MAX_OCTAL_SIZE) {
    block.write(octal(size, 12), 124, 'ascii');
  } else {
    // Base-256: the high bit of the first byte set, the size big-endian in the rest.
    block[124] = 0x80;
    block.writeBigUInt64BE(BigInt(size), 128);
  }
  block.write(octal(Math.floor(mtime.getTime() / 1000), 12), 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write('0', 156, 'ascii');
  block.write('ustar\0', 257, 'ascii');
  block.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

/** Writes tar entries into `sink` (a gzip stream, say); `finish` writes the end-of-archive blocks. */
export class TarWriter {
  readonly #sink: Writable;
  readonly #mtime: Date;

  constructor(sink: Writable, mtime: Date) {
    this.#sink = sink;
    this.#mtime = mtime;
  }

  /** One regular file of exactly `size` bytes, its content from `chunks`. */
  async add(name: string, size: number, chunks: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<void> {
    await writeChunk(this.#sink, header(name, size, this.#mtime));
    let written = 0;
    for await (const chunk of chunks) {
      written += chunk.length;
      if (written > size) throw new TarError(`${name} grew while it was being archived`);
      await writeChunk(this.#sink, chunk);
    }
    if (written !== size) throw new TarError(`${name} has ${written} bytes, ${size} were announced`);
    const padding = (BLOCK - (size % BLOCK)) % BLOCK;
    if (padding > 0) await writeChunk(this.#sink, ZERO_BLOCK.subarray(0, padding));
  }

  async finish(): Promise<void> {
    await writeChunk(this.#sink, Buffer.alloc(BLOCK * 2));
  }
}

/** Reads exact byte counts from a stream of chunks. */
class ChunkReader {
  readonly #source: AsyncIterator<Buffer>;
  #buffer: Buffer = Buffer.alloc(0);
  #ended = false;

  constructor(source: AsyncIterable<Buffer>) {
    this.#source = source[Symbol.asyncIterator]();
  }

  async #fill(): Promise<boolean> {
    if (this.#ended) return false;
    const next = await this.#source.next();
    if (next.done) {
      this.#ended = true;
      return false;
    }
    this.#buffer = this.#buffer.length === 0 ? next.value : Buffer.concat([this.#buffer, next.value]);
    return true;
  }

  /** Exactly `n` bytes; null at the end of the stream; throws when it ends in between. */
  async exactly(n: number): Promise<Buffer | null> {
    while (this.#buffer.length < n) {
      if (!(await this.#fill())) {
        if (this.#buffer.length === 0) return null;
        throw new TarError('the archive ends in the middle of an entry (truncated?)');
      }
    }
    const out = this.#buffer.subarray(0, n);
    this.#buffer = this.#buffer.subarray(n);
    return out;
  }

  /** The next `n` bytes, in the pieces they arrive in. */
  async *take(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.#buffer.length === 0 && !(await this.#fill()))
        throw new TarError('the archive ends in the middle of an entry (truncated?)');
      const piece = this.#buffer.subarray(0, Math.min(left, this.#buffer.length));
      this.#buffer = this.#buffer.subarray(piece.length);
      left -= piece.length;
      yield piece;
    }
  }

  async skip(n: number): Promise<void> {
    for await (const piece of this.take(n)) void piece;
  }
}

export interface TarEntry {
  name: string;
  size: number;
  /** The content; read it (or not) before asking for the next entry. */
  body: AsyncIterable<Buffer>;
}

function parseSize(field: Buffer): number {
  if ((field[0]! & 0x80) !== 0) {
    const size = field.readBigUInt64BE(4);
    if (size > BigInt(Number.MAX_SAFE_INTEGER)) throw new TarError('an entry is too large');
    return Number(size);
  }
  const text = field
    .toString('ascii')
    .replace(/[\0 ]+$/, '')
    .trim();
  if (!/^[0-7]*$/.test(text)) throw new TarError('not a tar archive (bad size field)');
  return text === '' ? 0 : Number.parseInt(text, 8);
}

function parseHeader(block: Buffer): { name: string; size: number; type: string } {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i]!;
  const stored = Number.parseInt(block.subarray(148, 156).toString('ascii').replace(/\0.*$/, '').trim(), 8);
  if (stored !== sum) throw new TarError('not a tar archive (header checksum mismatch)');
  const text = (from: number, to: number) => {
    const raw = block.subarray(from, to);
    const end = raw.indexOf(0);
    return raw.subarray(0, end === -1 ? raw.length : end).toString('utf8');
  };
  const prefix = block.subarray(257, 262).toString('ascii') === 'ustar' ? text(345, 500) : '';
  const name = prefix ? `${prefix}/${text(0, 100)}` : text(0, 100);
  return { name, size: parseSize(block.subarray(124, 136)), type: text(156, 157) };
}

/**
 * The regular files of a tar stream, in order. Each entry's body must be consumed (or abandoned)
 * before the next entry is asked for; what is left of it is skipped. Entries larger than `maxBytes`
 * together (as their headers announce them, before anything of them is read) throw
 * TarTooLargeError.
 */
export async function* readTar(
  source: AsyncIterable<Buffer>,
  maxBytes = Number.POSITIVE_INFINITY,
): AsyncGenerator<TarEntry> {
  const reader = new ChunkReader(source);
  let total = 0;
  for (;;) {
    const block = await reader.exactly(BLOCK);
    if (block === null) throw new TarError('the archive ends without its end-of-archive marker (truncated?)');
    if (block.equals(ZERO_BLOCK)) return;
    const { name, size, type } = parseHeader(block);
    const padding = (BLOCK - (size % BLOCK)) % BLOCK;
    total += size;
    if (total > maxBytes) throw new TarTooLargeError(maxBytes);
    if (type !== '0' && type !== '') {
      // Directories, links and extended headers: nothing an archive of ours holds.
      await reader.skip(size + padding);
      continue;
    }
    let left = size;
    const body = (async function* () {
      for await (const piece of reader.take(size)) {
        left -= piece.length;
        yield piece;
      }
    })();
    yield { name, size, body };
    if (left > 0) {
      // The consumer did not read it all: skip the rest (the generator may not have started).
      await body.return(undefined);
      await reader.skip(left);
    }
    await reader.skip(padding);
  }
}
