/** Small parts every page uses: prices, states, titles and descriptions, product cards, the block renderer. */
import { renderBlocks, toElements, type Block, type CreateElement } from '@storefront/blocks';
import { formatMoney, type ProductCard } from '@storefront/client';
import { h, type ComponentChildren, type ComponentType, type VNode } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { describeError } from './api.ts';
import { useMarket } from './market.ts';
import { CARD_SIZES, cardSrcSet, FIRST_ROW, GALLERY_SIZES, isMediaPath, mediaUrl } from './media.ts';
import { focusIsWhereRouteChangeLeftIt, href, Link, useLocation } from './router.tsx';
import { taxCountry, taxWords } from './tax-words.ts';

export function Money({ amount, currency }: { amount: number; currency: string }) {
  return <>{formatMoney(amount, currency)}</>;
}

/**
 * "incl. VAT", "incl. GST" or "incl. tax" after a price when the shopper's market's prices include
 * it (decision `markets`; on the default market, the store setting of decision prices-include-tax):
 * the tax of the country chosen, else of the market's one country, else "incl. tax" (tax-words.ts).
 */
export function InclTax() {
  const { country, market } = useMarket();
  return market?.pricesIncludeTax ? (
    <span class="price-tax muted"> {taxWords(taxCountry(country, market))}</span>
  ) : null;
}

/** A price, with the compare-at price struck through when it is higher, and "incl. VAT" (or GST, or tax) when it is. */
export function Price({
  amount,
  compareAt,
  currency,
}: {
  amount: number;
  compareAt?: number | null;
  currency: string;
}) {
  const reduced = compareAt !== undefined && compareAt !== null && compareAt > amount;
  return (
    <span class="price">
      <span class={reduced ? 'price-now price-sale' : 'price-now'}>
        {reduced ? <span class="visually-hidden">Sale price </span> : null}
        {formatMoney(amount, currency)}
      </span>
      {reduced ? (
        <s class="price-was">
          <span class="visually-hidden">Regular price </span>
          {formatMoney(compareAt, currency)}
        </s>
      ) : null}
      <InclTax />
    </span>
  );
}

/**
 * During a sale, the lowest price of the 30 days before it began (the API's `priorPrice`, the EU's
 * Omnibus rule), in words: "Lowest price in the last 30 days: $28.00". Nothing without a sale (the
 * price shown is not reduced) or without a prior price.
 */
export function PriorPrice({
  amount,
  compareAt,
  prior,
  currency,
  class: className,
}: {
  amount: number;
  compareAt?: number | null;
  prior?: number;
  currency: string;
  class: string;
}) {
  const reduced = compareAt !== undefined && compareAt !== null && compareAt > amount;
  if (!reduced || prior === undefined) return null;
  return (
    <span class={`price-prior ${className}`}>
      Lowest price in the last 30 days: {formatMoney(prior, currency)}
    </span>
  );
}

export function Loading({ label }: { label: string }) {
  return (
    <p class="loading" role="status">
      {label}
    </p>
  );
}

export function ErrorMessage({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  return (
    <div class="notice notice-error" role="alert">
      <p>{describeError(error)}</p>
      {onRetry ? (
        <button type="button" class="button-secondary" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Notice({
  tone,
  children,
}: {
  tone: 'info' | 'success' | 'warning';
  children: ComponentChildren;
}) {
  return (
    <div class={`notice notice-${tone}`} role="status">
      {children}
    </div>
  );
}

/** The route whose page has shown its heading (-1: none yet). */
let headingShownFor = -1;

/**
 * The page's heading. It takes the focus when the route changes (a link followed, a search
 * submitted, back to another page), so screen readers announce the new page: the first heading
 * the new route shows takes it, unless the shopper has put the focus elsewhere meanwhile (typing in
 * the search box while the page loads). A heading that comes later on the same route (the next
 * step of the checkout) takes it only from nowhere (the button pressed is gone). A data update
 * (the store's name, an order's status arriving in the title) never moves it, nor does the page the
 * shop is opened at (the browser announces it; Tab starts at the skip link). The document's title
 * changes in the same commit as the heading (a layout effect), so nothing that sees the new page
 * sees the old title.
 */
export function PageTitle({ children, title }: { children: ComponentChildren; title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  const { route } = useLocation();
  useLayoutEffect(() => {
    document.title = title;
  }, [title]);
  useEffect(() => {
    const first = headingShownFor !== route;
    headingShownFor = route;
    const nowhere = document.activeElement === null || document.activeElement === document.body;
    if (first ? route > 0 && focusIsWhereRouteChangeLeftIt() : nowhere)
      ref.current?.focus({ preventScroll: true });
  }, [route]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** The shop's own description (index.html), for pages that give none. */
const shopDescription =
  document.querySelector<HTMLMetaElement>('meta[name="description"]')?.getAttribute('content') ?? null;

function setMetaDescription(text: string | null): void {
  let meta = document.head.querySelector<HTMLMetaElement>('meta[name="description"]');
  if (text === null) {
    meta?.remove();
    return;
  }
  if (!meta) {
    meta = document.createElement('meta');
    meta.name = 'description';
    document.head.append(meta);
  }
  meta.content = text;
}

/**
 * The page's `<meta name="description">`: `text`, or none when it is null; `undefined` (not known
 * yet) leaves the shop's own, which comes back when the page goes. Set in the commit that draws the
 * page, like the title.
 */
export function useMetaDescription(text: string | null | undefined): void {
  useLayoutEffect(() => {
    if (text === undefined) return;
    setMetaDescription(text);
    return () => setMetaDescription(shopDescription);
  }, [text]);
}

/**
 * A product's picture, or a tile with its initial when it has none or it does not load. The tile is
 * square (`aspect-ratio` in shop.css) and the picture covers it, so the space is kept before the
 * picture arrives. An uploaded image (`/media/…`) comes with a `srcset` of its copies; an old
 * product's https URL is used as it is. Lazy, unless `eager` (a card of the first row, or the
 * product page's picture).
 */
export function ProductImage({
  src,
  title,
  large = false,
  eager = large,
}: {
  src: string | null;
  title: string;
  large?: boolean;
  eager?: boolean;
}) {
  const initial = (title.trim()[0] ?? '?').toUpperCase();
  const hue = [...title].reduce((sum, char) => sum + char.charCodeAt(0), 0) % 360;
  const media = src !== null && isMediaPath(src);
  return (
    <div class={large ? 'product-image product-image-large' : 'product-image'} data-hue={hue % 12}>
      <span aria-hidden="true">{initial}</span>
      {src && /^(https:|\/(?!\/))/.test(src) ? (
        <img
          loading={eager ? 'eager' : 'lazy'}
          decoding="async"
          fetchpriority={large ? 'high' : undefined}
          sizes={media ? (large ? GALLERY_SIZES : CARD_SIZES) : undefined}
          srcset={media ? cardSrcSet(src) : undefined}
          src={media ? mediaUrl(src, 320) : src}
          alt=""
          onError={(event) => (event.currentTarget.hidden = true)}
        />
      ) : null}
    </div>
  );
}

export function ProductGrid({ products }: { products: readonly ProductCard[] }) {
  return (
    <ul class="product-grid">
      {products.map((product, index) => (
        <li key={product.id}>
          <Link to={`/products/${encodeURIComponent(product.handle)}`} class="product-card">
            <ProductImage src={product.image} title={product.title} eager={index < FIRST_ROW} />
            <span class="product-card-title">{product.title}</span>
            <span class="product-card-price">
              <Price
                amount={product.priceAmount}
                compareAt={product.compareAtAmount}
                currency={product.currency}
              />
            </span>
            <PriorPrice
              amount={product.priceAmount}
              compareAt={product.compareAtAmount}
              prior={product.priorPrice}
              currency={product.currency}
              class="product-card-prior"
            />
          </Link>
        </li>
      ))}
    </ul>
  );
}

/**
 * A collection as the Storefront API's card gives it: with its active products' count, the range
 * of their prices and whether one is on sale. (Optional until the client's generated types have
 * them; the API always sends them.)
 */
export interface CollectionSummary {
  id: string;
  title: string;
  slug: string;
  productCount?: number;
  priceRange?: { min: number; max: number } | null;
  onSale?: boolean;
}

/** "$12.00" for one price, "$12.00 – $45.00" for a range. */
export function priceRangeText(range: { min: number; max: number }, currency: string): string {
  return range.min === range.max
    ? formatMoney(range.min, currency)
    : `${formatMoney(range.min, currency)} – ${formatMoney(range.max, currency)}`;
}

export function CollectionCards({
  collections,
  currency,
}: {
  collections: readonly CollectionSummary[];
  currency: string | undefined;
}) {
  return (
    <ul class="collection-grid">
      {collections.map((collection) => (
        <li key={collection.id}>
          <Link to={`/collections/${encodeURIComponent(collection.slug)}`} class="collection-card">
            <span class="collection-card-title">
              {collection.title}
              {collection.onSale ? (
                <>
                  <span class="visually-hidden">, </span>
                  <span class="sale-badge">Sale</span>
                </>
              ) : null}
            </span>
            {collection.productCount === undefined ? null : (
              <span class="muted">
                <span class="visually-hidden">, </span>
                {`${collection.productCount} ${collection.productCount === 1 ? 'product' : 'products'}`}
              </span>
            )}
            {collection.priceRange && currency ? (
              <span class="collection-card-price">
                <span class="visually-hidden">, </span>
                {priceRangeText(collection.priceRange, currency)}
              </span>
            ) : null}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/**
 * A content region, by the shared renderer (@storefront/blocks): texts become text nodes (Preact
 * escapes them; no HTML is ever parsed from content), link and image URLs were checked again by
 * the renderer, and a link to a path of the shop stays in the shop.
 */
const createElement: CreateElement<VNode> = (tag, props, ...children) =>
  h(tag, props.href === undefined ? props : { ...props, href: href(props.href) }, ...children);

export function Blocks({ blocks }: { blocks: readonly Block[] }) {
  return <div class="sf-region">{toElements(renderBlocks(blocks), createElement)}</div>;
}

/** A plain-text page body: paragraphs at blank lines, lines kept; never markup. */
export function Paragraphs({ text }: { text: string }) {
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean);
  return (
    <>
      {paragraphs.map((paragraph, i) => (
        <p key={i} class="page-paragraph">
          {paragraph}
        </p>
      ))}
    </>
  );
}

/**
 * A page loaded when it is first shown, in its own chunk (the checkout and the order page carry
 * the address rules of every country, ~20 kB, which browsing does not need). `preload` starts the
 * download early (the cart page does, so "Check out" opens at once).
 */
export function lazyPage<P extends object>(
  load: () => Promise<ComponentType<P>>,
  label: string,
): ComponentType<P> & { preload: () => void } {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<void> | null = null;
  const start = () =>
    (pending ??= load().then(
      (component) => {
        loaded = component;
      },
      (error: unknown) => {
        pending = null; // a later visit tries again
        throw error;
      },
    ));
  function LazyPage(props: P) {
    const [ready, setReady] = useState(loaded !== null);
    const [failed, setFailed] = useState<unknown>(null);
    useEffect(() => {
      if (ready) return;
      let live = true;
      start().then(
        () => live && setReady(true),
        (error: unknown) => live && setFailed(error),
      );
      return () => {
        live = false;
      };
    }, [ready]);
    if (failed) return <ErrorMessage error={failed} onRetry={() => setFailed(null)} />;
    return ready && loaded ? h(loaded, props) : <Loading label={label} />;
  }
  return Object.assign(LazyPage, { preload: () => void start().catch(() => undefined) });
}
