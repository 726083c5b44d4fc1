/**
 * Pictures from the API's media (decision `media-resize-bound`): `/media/{store}/{hash}.{ext}` paths, immutable, resized by
 * `?w=` to one of a few fixed widths (never enlarged) and sent as AVIF or WebP by the browser's
 * `Accept`. The shop gives the browser a `srcset` of those widths and a `sizes` that matches its
 * layout, so it downloads the smallest copy that is sharp at the screen's density.
 */
import { config } from './api.ts';

/** The widths `?w=` takes (docs/catalog.md, "Media"). */
export const MEDIA_WIDTHS: readonly number[] = [160, 320, 640, 960, 1280, 1920];

/**
 * An image of a product, as both product views give it (decision `media-uploads`): the media's id, its path, its alt
 * text (null: none given) and its size as displayed. Declared here until the client types are
 * regenerated.
 */
export interface ProductImageData {
  id: string;
  url: string;
  alt: string | null;
  width: number;
  height: number;
}

/** An uploaded image's path on the API, which `?w=` resizes (an old product's https URL is not). */
export function isMediaPath(src: string): boolean {
  return src.startsWith('/media/');
}

const apiOrigin = new URL(config.apiBaseUrl, window.location.href).origin;

/**
 * The address of a media path (with `?w=` for a resized copy): the path itself when the API is the
 * page's own origin (served at /shop), else resolved against the API's (a shop built for another
 * host).
 */
export function mediaUrl(path: string, width?: number): string {
  const url = apiOrigin === window.location.origin ? path : new URL(path, apiOrigin).href;
  return width === undefined ? url : `${url}?w=${width}`;
}

/**
 * A `srcset` for an upload `width` pixels wide: each fixed width below it, and the upload itself at
 * its width (or the fixed width equal to it: the same pixels, in a lighter format).
 */
export function mediaSrcSet(path: string, width: number): string {
  const candidates = MEDIA_WIDTHS.filter((w) => w < width).map((w) => `${mediaUrl(path, w)} ${w}w`);
  candidates.push(`${mediaUrl(path, MEDIA_WIDTHS.includes(width) ? width : undefined)} ${width}w`);
  return candidates.join(', ');
}

/** The `src` beside a `srcset`, for a browser that ignores it: the `wanted` copy, or the upload when smaller. */
export function mediaFallback(path: string, width: number, wanted = 640): string {
  return mediaUrl(path, width >= wanted ? wanted : undefined);
}

/**
 * A card's `srcset` when the upload's size is not known (a card gives its URL only): the fixed
 * widths up to what a card needs at three device pixels per CSS pixel. A copy asked wider than the
 * upload is the upload's width; the card's box sets the size shown.
 */
export function cardSrcSet(path: string): string {
  return MEDIA_WIDTHS.filter((w) => w <= 1280)
    .map((w) => `${mediaUrl(path, w)} ${w}w`)
    .join(', ');
}

/**
 * How wide a card's picture is shown (shop.css, `.product-grid`: columns of at least 10.5rem with
 * 1.25rem gaps in the page's 1rem padding): one column below 24.25rem, the viewport less the
 * padding; at most 16.5rem once two fit.
 */
export const CARD_SIZES = '(min-width: 24.25rem) 16.5rem, calc(100vw - 2rem)';

/**
 * How wide the product page's main picture is shown (shop.css, `.product`): the page's width less
 * its padding below 48rem; half of it less the 2rem gap from 48rem; 34rem once the page stops at
 * 72rem.
 */
export const GALLERY_SIZES =
  '(min-width: 72rem) 34rem, (min-width: 48rem) calc(50vw - 2rem), calc(100vw - 2rem)';

/** A thumbnail's width (shop.css, `.gallery-thumb`). */
export const THUMB_SIZES = '4.5rem';

/** Cards before this index are in the first row at the widest layout (six columns) and load at once. */
export const FIRST_ROW = 6;
