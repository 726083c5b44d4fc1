/** MEDIA_MAX_PIXELS when it is not set: the pixels (frames included) of the largest JPEG or PNG taken. */
export const DEFAULT_MAX_PIXELS = 40_000_000;

/** Where uploaded media is kept and how much work serving it may take (decision `media-uploads`; parsed in src/config.ts). */
export interface MediaConfig {
  /** The storage adapter (MEDIA_STORAGE): only `local` is built; S3-compatible storage is not yet. */
  readonly storage: 'local';
  /** The local adapter's directory: `DATA_DIR/media`. */
  readonly dir: string;
  /** The largest file an upload may carry, bytes (MEDIA_MAX_MB). */
  readonly maxBytes: number;
  /**
   * The most pixels (frames included) of an upload, read from its header before anything is decoded;
   * formats whose work needs more memory per pixel than JPEG take fewer (MEDIA_MAX_PIXELS).
   */
  readonly maxPixels: number;
  /** Image decodes and resizes run at once in one process (MEDIA_RESIZE_CONCURRENCY). */
  readonly resizeConcurrency: number;
  /** Resizes that may wait for a turn; beyond them a request is 503 with Retry-After (MEDIA_RESIZE_QUEUE). */
  readonly resizeQueue: number;
}
