import type sharpFunction from 'sharp';
import type { Metadata } from 'sharp';
import { AppError } from '../lib/errors.ts';
import type { MediaContentType } from './media.tables.ts';

/**
 * Images through sharp (libvips): what an upload is, checked by decoding it, and its resized
 * copies. sharp is loaded on first use (decision `optional-packages-on-demand`): a process that
 * serves no image never loads libvips. Its own operation cache is off and each image is worked on
 * by one thread, so the work in flight is what `WorkLimiter` lets through (decision
 * `media-resize-bound`).
 */

export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'avif' | 'gif';

/** The widths a resized copy may have (decision `media-widths`). */
export const WIDTHS: readonly number[] = [160, 320, 640, 960, 1280, 1920];

/** An image over this many pixels is refused, at upload and when it is decoded. */
export const MAX_INPUT_PIXELS = 50_000_000;

/** One decode or resize may take this long before sharp stops it. */
const TIMEOUT_SECONDS = 20;

export const EXTENSION: Readonly<Record<ImageFormat, string>> = {
  jpeg: 'jpg',
  png: 'png',
  webp: 'webp',
  avif: 'avif',
  gif: 'gif',
};
export const CONTENT_TYPE: Readonly<Record<ImageFormat, MediaContentType>> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
};

export function formatOfExtension(extension: string): ImageFormat | null {
  const found = Object.entries(EXTENSION).find(([, ext]) => ext === extension);
  return found ? (found[0] as ImageFormat) : null;
}

export function formatOfContentType(contentType: MediaContentType): ImageFormat {
  return Object.entries(CONTENT_TYPE).find(([, type]) => type === contentType)![0] as ImageFormat;
}

type SharpFunction = typeof sharpFunction;
let loading: Promise<SharpFunction> | null = null;

/** sharp, loaded once, with its operation cache off and one thread per image. */
export function loadSharp(): Promise<SharpFunction> {
  loading ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    sharp.concurrency(1);
    return sharp;
  });
  return loading;
}

const ACCEPTED = 'a JPEG, PNG, WebP, AVIF or GIF image';

export const unsupportedImage = (detail: string): AppError =>
  new AppError('unsupported_image', 415, detail, {
    errors: [{ pointer: '/file', detail: `must be ${ACCEPTED}` }],
  });

/** What the file's first bytes say it is (its name and declared type are not believed). */
export function sniffFormat(bytes: Buffer): ImageFormat | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'png';
  const head = bytes.subarray(0, 12).toString('latin1');
  if (head.startsWith('GIF87a') || head.startsWith('GIF89a')) return 'gif';
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return 'webp';
  // ISO BMFF: a `ftyp` box whose major or a compatible brand is avif (still) or avis (sequence).
  if (head.slice(4, 8) === 'ftyp') {
    const size = Math.min(bytes.readUInt32BE(0), 64, bytes.length);
    const brands = bytes.subarray(8, size).toString('latin1');
    if (/avi[fs]/.test(brands)) return 'avif';
  }
  return null;
}

function decodedFormat(metadata: Metadata): ImageFormat | null {
  if (metadata.format === 'heif') return metadata.compression === 'av1' ? 'avif' : null;
  return (['jpeg', 'png', 'webp', 'gif'] as const).find((format) => format === metadata.format) ?? null;
}

export interface InspectedImage {
  format: ImageFormat;
  /** As displayed: the EXIF orientation applied. */
  width: number;
  height: number;
  /** Whether it carries EXIF, XMP or IPTC metadata (a camera's GPS position among them). */
  metadata: boolean;
}

/**
 * What an uploaded file is: one of the five types by its first bytes, and by sharp, which reads its
 * header and then decodes every pixel (a renamed text file, another format or a file cut short is
 * 415 `unsupported_image`; more than MAX_INPUT_PIXELS is 413 `image_too_large`).
 */
export async function inspectImage(bytes: Buffer): Promise<InspectedImage> {
  const sniffed = sniffFormat(bytes);
  if (sniffed === null)
    throw unsupportedImage(`The file is not ${ACCEPTED}: its content is of another kind, whatever its name.`);
  const sharp = await loadSharp();
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { failOn: 'error', limitInputPixels: false }).metadata();
  } catch {
    throw unsupportedImage(`The file starts as ${CONTENT_TYPE[sniffed]} but its header cannot be read.`);
  }
  if (decodedFormat(metadata) !== sniffed)
    throw unsupportedImage(`The file is not ${ACCEPTED} (it decodes as ${metadata.format}).`);
  const pages = Math.max(1, metadata.pages ?? 1);
  if (metadata.width * metadata.height * pages > MAX_INPUT_PIXELS)
    throw new AppError(
      'image_too_large',
      413,
      `The image is ${metadata.width}×${metadata.height} pixels${pages > 1 ? ` in ${pages} frames` : ''}; at most ${MAX_INPUT_PIXELS / 1_000_000} megapixels are taken.`,
    );
  try {
    await sharp(bytes, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS })
      .timeout({ seconds: TIMEOUT_SECONDS })
      .stats();
  } catch {
    throw unsupportedImage(
      `The file is not a whole ${CONTENT_TYPE[sniffed]} image: its pixels do not decode (it is damaged or cut short).`,
    );
  }
  return {
    format: sniffed,
    width: metadata.autoOrient.width,
    height: metadata.autoOrient.height,
    metadata: Boolean(metadata.exif ?? metadata.xmp ?? metadata.iptc),
  };
}

/**
 * The upload without its EXIF, XMP and IPTC metadata (decision `media-without-metadata`), oriented as
 * displayed and encoded again in its own format at a high quality. What is served is public: a
 * photo's GPS position, camera serial or author must not go with it.
 */
export async function withoutMetadata(original: Buffer, format: ImageFormat): Promise<Buffer> {
  const sharp = await loadSharp();
  const image = sharp(original, {
    failOn: 'error',
    limitInputPixels: MAX_INPUT_PIXELS,
    autoOrient: true,
    animated: format === 'gif' || format === 'webp',
  }).timeout({ seconds: TIMEOUT_SECONDS });
  switch (format) {
    case 'avif':
      return image.avif({ quality: 75 }).toBuffer();
    case 'webp':
      return image.webp({ quality: 92 }).toBuffer();
    case 'jpeg':
      return image.jpeg({ quality: 92 }).toBuffer();
    case 'png':
      return image.png().toBuffer();
    case 'gif':
      return image.gif().toBuffer();
  }
}

/**
 * The format a copy is sent in (decision `media-widths`): AVIF when the client accepts it, else WebP,
 * else the upload's own. GIF and WebP uploads may be animated, which sharp's AVIF cannot hold: they
 * go to WebP or stay as they are.
 */
export function negotiateFormat(source: ImageFormat, accept: string | undefined): ImageFormat {
  const accepted = acceptedImageTypes(accept ?? '');
  const animatable = source === 'gif' || source === 'webp';
  if (!animatable && accepted.has('image/avif')) return 'avif';
  if (accepted.has('image/webp')) return 'webp';
  return source;
}

/** The image types an Accept header names with a non-zero quality (wildcards do not count). */
function acceptedImageTypes(accept: string): Set<string> {
  const types = new Set<string>();
  for (const range of accept.split(',')) {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    types.add(type);
  }
  return types;
}

/**
 * The upload resized to `width` (never enlarged: a narrower upload keeps its width) and encoded as
 * `format`, oriented as displayed and without metadata. Animated GIF and WebP stay animated.
 */
export async function resizeImage(
  original: Buffer,
  source: ImageFormat,
  width: number,
  format: ImageFormat,
): Promise<Buffer> {
  const sharp = await loadSharp();
  const image = sharp(original, {
    failOn: 'error',
    limitInputPixels: MAX_INPUT_PIXELS,
    autoOrient: true,
    animated: source === 'gif' || source === 'webp',
  })
    .timeout({ seconds: TIMEOUT_SECONDS })
    .resize({ width, withoutEnlargement: true });
  switch (format) {
    case 'avif':
      return image.avif({ quality: 55, effort: 2 }).toBuffer();
    case 'webp':
      return image.webp({ quality: 80 }).toBuffer();
    case 'jpeg':
      return image.jpeg({ quality: 82, progressive: true }).toBuffer();
    case 'png':
      return image.png({ compressionLevel: 8 }).toBuffer();
    case 'gif':
      return image.gif().toBuffer();
  }
}

export const mediaBusy = (): AppError =>
  new AppError(
    'media_busy',
    503,
    'The server is resizing as many images as it takes at once; retry after Retry-After.',
    { headers: { 'retry-after': '1' } },
  );

/**
 * A bound on image work in one process: at most `concurrency` tasks run, at most `queue` wait for a
 * turn, and one more is refused at once (`mediaBusy`, 503 with Retry-After) instead of piling up.
 */
export class WorkLimiter {
  readonly #concurrency: number;
  readonly #queue: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  readonly #inFlight = new Map<string, Promise<unknown>>();

  constructor(options: { concurrency: number; queue: number }) {
    this.#concurrency = options.concurrency;
    this.#queue = options.queue;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running < this.#concurrency) this.#running += 1;
    else if (this.#waiting.length < this.#queue)
      await new Promise<void>((resolve) => this.#waiting.push(resolve)); // its turn is handed over
    else throw mediaBusy();
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running -= 1;
    }
  }

  /**
   * `run`, once at a time per `key`: a request for work already in flight (the same resized copy
   * asked for by many shoppers at once) waits for that work instead of doing it again.
   */
  runOnce<T>(key: string, task: () => Promise<T>): Promise<T> {
    const running = this.#inFlight.get(key) as Promise<T> | undefined;
    if (running) return running;
    const started = this.run(task).finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, started);
    return started;
  }

  /** Tasks running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }
}
