/**
 * The product page's pictures (decision `media-uploads`): the main one as large as the layout allows, and a thumbnail
 * button per picture to show it instead. Each `<img>` has the upload's `width` and `height`, so the
 * browser keeps its space before the bytes arrive (no layout shift), and a `srcset` of the API's
 * copies with a `sizes` that matches the layout. The main picture is fetched first
 * (`fetchpriority="high"`, never lazy); the thumbnails are lazy and decoded off the main thread.
 */
import { useEffect, useState } from 'preact/hooks';
import { GALLERY_SIZES, mediaFallback, mediaSrcSet, THUMB_SIZES, type ProductImageData } from './media.ts';

export function Gallery({
  images,
  title,
  variantId,
  variantImageId,
}: {
  images: readonly ProductImageData[];
  /** The product's title: the alt text of a picture given none. */
  title: string;
  /** The chosen variant, and the picture it shows (null: the product's). */
  variantId: string;
  variantImageId: string | null;
}) {
  const [shownId, setShownId] = useState(variantImageId ?? images[0]?.id);
  // Choosing a variant with a picture of its own shows it; one without keeps what is shown.
  useEffect(() => {
    if (variantImageId) setShownId(variantImageId);
  }, [variantId, variantImageId]);

  const index = Math.max(
    0,
    images.findIndex((image) => image.id === shownId),
  );
  const shown = images[index];
  if (!shown) return null;
  return (
    <div class="gallery">
      <div class="gallery-main">
        <img
          loading="eager"
          fetchpriority="high"
          sizes={GALLERY_SIZES}
          srcset={mediaSrcSet(shown.url, shown.width)}
          src={mediaFallback(shown.url, shown.width)}
          width={shown.width}
          height={shown.height}
          alt={shown.alt ?? title}
        />
      </div>
      {images.length > 1 ? (
        <ul class="gallery-thumbs" aria-label="Pictures">
          {images.map((image, i) => (
            <li key={image.id}>
              <button
                type="button"
                class="gallery-thumb"
                aria-pressed={i === index}
                aria-label={`Image ${i + 1} of ${images.length}${image.alt ? `: ${image.alt}` : ''}`}
                onClick={() => setShownId(image.id)}
              >
                <img
                  loading="lazy"
                  decoding="async"
                  sizes={THUMB_SIZES}
                  srcset={mediaSrcSet(image.url, image.width)}
                  src={mediaFallback(image.url, image.width, 160)}
                  width={image.width}
                  height={image.height}
                  alt=""
                />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
