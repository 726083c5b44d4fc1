import type sharpFunction from 'sharp';
import type { Metadata } from 'sharp';
import { AppError } from '../lib/errors.ts';
import type { MediaContentType } from './media.tables.ts';

/**
 * Images through sharp (libvips): what an upload is (from its header), what is kept of it (its
 * pixels alone, encoded again) and its resized copies. sharp is loaded on first use (decision `optional-packages-on-demand`): a process that
 * serves no image never loads libvips. Its own operation cache is off and each image is worked on
 * by one thread, so the work in flight is what `WorkLimiter` lets through (decision
 * `media-resize-bound`).
 */

export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'avif' | 'gif';

/** The widths a resized copy may have (decision `media-widths`). */
export const WIDTHS: readonly number[] = [160, 320, 640, 960, 1280, 1920];

/**
 * Bytes of memory one pixel costs while an upload is decoded and encoded again, decoder and encoder
 * together, by format (measured on 8- and 12-megapixel images and rounded up; 16 bits per sample
 * count twice). JPEG's is the unit of MEDIA_MAX_PIXELS: the encoder with optimised Huffman tables
 * holds the whole image's coefficients. Decision `media-pixel-bound`.
 */
const BYTES_PER_PIXEL: Readonly<Record<ImageFormat, number>> = {
  jpeg: 8,
  png: 8,
  webp: 13,
  gif: 16,
  avif: 36,
};

/** One decode or resize may take this long before sharp stops it (an AVIF encode is not stopped). */
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

const FORMAT_NAME: Readonly<Record<ImageFormat, string>> = {
  jpeg: 'JPEG',
  png: 'PNG',
  webp: 'WebP',
  avif: 'AVIF',
  gif: 'GIF',
};

/**
 * The most pixels, frames included, an upload of `format` may have: `maxPixels` (MEDIA_MAX_PIXELS)
 * for a JPEG, fewer where the work needs more memory per pixel, so that one upload never needs more
 * than `maxPixels` JPEG pixels' worth (decision `media-pixel-bound`).
 */
export function pixelLimit(format: ImageFormat, sixteenBit: boolean, maxPixels: number): number {
  const bytes = BYTES_PER_PIXEL[format] * (sixteenBit ? 2 : 1);
  return Math.floor((maxPixels * BYTES_PER_PIXEL.jpeg) / bytes);
}

const megapixels = (pixels: number): string => `${Number((pixels / 1_000_000).toFixed(1))}`;

/** What an upload's header says; nothing of its pixels is decoded to know it. */
export interface ImageHeader {
  format: ImageFormat;
  /** As displayed: the EXIF orientation applied. */
  width: number;
  height: number;
  /** Frames of an animated GIF or WebP (1 for a still image). */
  frames: number;
  /** The most pixels sharp may decode for it (its `pixelLimit`). */
  limit: number;
  /** A PNG with a palette: kept with one (encoded again without loss). */
  palette: boolean;
  /** A WebP compressed without loss: kept without loss. */
  lossless: boolean;
}

/** Whether a WebP's first image is lossless (a `VP8L` chunk before any lossy `VP8 ` one). */
function losslessWebp(bytes: Buffer): boolean {
  let offset = 12; // after "RIFF", the size and "WEBP"
  while (offset + 8 <= bytes.length) {
    const fourcc = bytes.toString('latin1', offset, offset + 4);
    if (fourcc === 'VP8L') return true;
    if (fourcc === 'VP8 ') return false;
    const size = bytes.readUInt32LE(offset + 4);
    // A frame of an animation holds its image's chunks after a 16-byte header of its own.
    offset += fourcc === 'ANMF' ? 8 + 16 : 8 + size + (size % 2);
  }
  return false;
}

/**
 * What an uploaded file is, from its first bytes and its header alone (decision
 * `media-pixel-bound`): one of the five types (its name and declared type are not believed; a
 * renamed text file, another format or an unreadable header is 415 `unsupported_image`), within the
 * pixels its format may have (413 `image_too_large`, before any pixel is decoded).
 */
export async function readImageHeader(bytes: Buffer, maxPixels: number): Promise<ImageHeader> {
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
  const animated = sniffed === 'gif' || sniffed === 'webp';
  const frames = animated ? Math.max(1, metadata.pages ?? 1) : 1;
  const pixels = metadata.width * metadata.height * frames;
  const limit = pixelLimit(sniffed, metadata.depth === 'ushort', maxPixels);
  if (pixels > limit) {
    const size = `${metadata.width}×${metadata.height} pixels${frames > 1 ? ` in ${frames} frames` : ''}`;
    const kind = `${metadata.depth === 'ushort' ? '16-bit ' : ''}${FORMAT_NAME[sniffed]}`;
    const detail =
      limit === maxPixels
        ? `at most ${megapixels(limit)} megapixels are taken (MEDIA_MAX_PIXELS).`
        : `${/^[AEIOU]/.test(kind) ? 'an' : 'a'} ${kind} is taken up to ${megapixels(limit)} megapixels (MEDIA_MAX_PIXELS is ${megapixels(maxPixels)} for JPEG; cleaning this format takes more memory per pixel). Upload it smaller, or as JPEG.`;
    throw new AppError('image_too_large', 413, `The image is ${size}; ${detail}`);
  }
  return {
    format: sniffed,
    width: metadata.autoOrient.width,
    height: metadata.autoOrient.height,
    frames,
    limit,
    palette: sniffed === 'png' && metadata.isPalette,
    lossless: sniffed === 'webp' && losslessWebp(bytes),
  };
}

/**
 * The upload as it is kept and served (decision `media-without-metadata`): every pixel decoded
 * (a damaged or cut-short file is 415 `unsupported_image`), oriented as displayed, turned into sRGB,
 * and encoded again in its own format with nothing but its pixels: no EXIF (a GPS position), XMP,
 * IPTC, ICC profile, comment, text chunk or byte after the image's end survives. Animated GIF and
 * WebP stay animated, a palette PNG and a lossless WebP stay lossless, GIF keeps its palette.
 */
export async function cleanImage(original: Buffer, header: ImageHeader): Promise<Buffer> {
  const sharp = await loadSharp();
  const image = sharp(original, {
    failOn: 'error',
    limitInputPixels: header.limit,
    autoOrient: true,
    animated: header.format === 'gif' || header.format === 'webp',
  }).timeout({ seconds: TIMEOUT_SECONDS });
  const encoded = {
    jpeg: () => image.jpeg({ quality: 92 }),
    png: () => (header.palette ? image.png({ palette: true, quality: 100, dither: 0 }) : image.png()),
    webp: () => (header.lossless ? image.webp({ lossless: true }) : image.webp({ quality: 92 })),
    gif: () => image.gif(),
    avif: () => image.avif({ quality: 75, effort: 2 }),
  }[header.format]();
  try {
    return await encoded.toBuffer();
  } catch (error) {
    if (/timeout/i.test((error as Error).message))
      throw new AppError(
        'image_too_large',
        413,
        `The image could not be checked within ${TIMEOUT_SECONDS} s; upload it smaller.`,
      );
    throw unsupportedImage(
      `The file is not a whole ${CONTENT_TYPE[header.format]} image: its pixels do not decode (it is damaged or cut short).`,
    );
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
  // The upload was bounded when it was taken (`readImageHeader`); sharp's own limit guards the rest.
  const image = sharp(original, {
    failOn: 'error',
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
