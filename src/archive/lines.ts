/** What a LineReader did, for the test that holds it to linear work. */
export interface LineWork {
  /** Bytes searched for a line break. */
  scanned: number;
  /** Bytes copied to join a line that spans chunks. */
  copied: number;
}

const NEWLINE = 0x0a;

/**
 * The lines of a table file as its chunks arrive (decision `archive-bounds`), in linear work: each
 * byte is searched once, and a line that spans chunks is joined once, when its end arrives; a line
 * longer than `maxBytes` is refused as soon as it is longer (`tooLong(line number)` is thrown), so
 * neither memory nor time grows past the bound. With `keep` false the lines are only counted.
 */
export class LineReader {
  readonly #maxBytes: number;
  readonly #tooLong: (line: number) => Error;
  readonly #keep: boolean;
  readonly work: LineWork = { scanned: 0, copied: 0 };
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Complete lines so far. */
  lines = 0;

  constructor(options: { maxBytes: number; tooLong: (line: number) => Error; keep: boolean }) {
    this.#maxBytes = options.maxBytes;
    this.#tooLong = options.tooLong;
    this.#keep = options.keep;
  }

  /** The lines `chunk` completes (empty when not kept), without their line breaks. */
  push(chunk: Buffer): string[] {
    const complete: string[] = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.work.scanned += end + 1 - start;
      this.lines += 1;
      if (this.#pendingBytes + end - start > this.#maxBytes) throw this.#tooLong(this.lines);
      if (this.#keep) complete.push(this.#join(chunk.subarray(start, end)).toString('utf8'));
      this.#pending = [];
      this.#pendingBytes = 0;
      start = end + 1;
    }
    this.work.scanned += chunk.length - start;
    if (start < chunk.length) {
      this.#pendingBytes += chunk.length - start;
      if (this.#pendingBytes > this.#maxBytes) throw this.#tooLong(this.lines + 1);
      if (this.#keep) this.#pending.push(chunk.subarray(start));
    }
    return complete;
  }

  /** Bytes after the last line break (a table file ends with one: more is a damaged file). */
  get rest(): number {
    return this.#pendingBytes;
  }

  #join(last: Buffer): Buffer {
    if (this.#pending.length === 0) return last;
    const joined = Buffer.concat([...this.#pending, last]);
    this.work.copied += joined.length;
    return joined;
  }
}
