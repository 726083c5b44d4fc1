/** A product by its handle: its pictures, a control per option (else a variant picker), prices, availability, add to cart; its SEO title and description. */
import type { Product as ClientProduct } from '@storefront/client';
import { useEffect, useState } from 'preact/hooks';
import { describeError, isStatus, shopApi } from '../api.ts';
import { cartStore, NotEnoughStockError, useCart } from '../cart.ts';
import { remember, useResource } from '../data.ts';
import { inCountry, marketKey, useMarket } from '../market.ts';
import { Gallery } from '../gallery.tsx';
import { Link, navigate, useLocation } from '../router.tsx';
import {
  ErrorMessage,
  Loading,
  Notice,
  PageTitle,
  Paragraphs,
  Price,
  PriorPrice,
  ProductImage,
  useMetaDescription,
} from '../ui.tsx';
import { NotFound } from './not-found.tsx';

/** The product with its pictures (`images`) and each variant's (`imageId`, decision `media-uploads`). */
type Product = ClientProduct;
type Variant = Product['variants'][number];

function availability(variant: Variant): string {
  if (variant.available === 0) return 'Sold out';
  if (variant.available <= 5) return `Only ${variant.available} left`;
  return 'In stock';
}

/** More values than this and an option is a select, not a row of radio buttons. */
const MAX_RADIOS = 8;

type ValueState = 'available' | 'sold-out' | 'unavailable' | 'none';

/** A value of one option beside the other chosen values: its variant in stock, sold out, or none such. */
function valueState(product: Product, current: Variant, name: string, value: string): ValueState {
  const match = product.variants.find((candidate) =>
    product.options.every((option) =>
      option.name === name
        ? candidate.options[option.name] === value
        : candidate.options[option.name] === current.options[option.name],
    ),
  );
  if (match) return match.available === 0 ? 'sold-out' : 'available';
  return product.variants.some((candidate) => candidate.options[name] === value) ? 'unavailable' : 'none';
}

/**
 * The variant for a value of one option: the one that keeps most of the other chosen values, in
 * stock before sold out. A value with no variant beside the others still leads to one that has it.
 */
function variantFor(product: Product, current: Variant, name: string, value: string): Variant | undefined {
  let best: Variant | undefined;
  let bestScore = -1;
  for (const candidate of product.variants) {
    if (candidate.options[name] !== value) continue;
    const kept = product.options.filter(
      (option) => option.name !== name && candidate.options[option.name] === current.options[option.name],
    ).length;
    const score = kept * 2 + (candidate.available > 0 ? 1 : 0);
    if (score > bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

const STATE_TEXT: Record<ValueState, string | null> = {
  available: null,
  'sold-out': 'sold out',
  unavailable: 'unavailable',
  none: 'unavailable',
};

/** One control per option (decision `product-options`): radio buttons, or a select for a long list; each value says whether it can be had. */
function OptionPicker({
  product,
  variant,
  onChoose,
}: {
  product: Product;
  variant: Variant;
  onChoose: (next: Variant) => void;
}) {
  function pick(name: string, value: string) {
    const next = variantFor(product, variant, name, value);
    if (next && next.id !== variant.id) onChoose(next);
  }
  return (
    <div class="option-pickers">
      {product.options.map((option, index) => {
        const chosen = variant.options[option.name];
        const legend = (
          <legend>
            {option.name}
            {chosen === undefined ? null : <span class="option-chosen">: {chosen}</span>}
          </legend>
        );
        if (option.values.length > MAX_RADIOS) {
          return (
            <fieldset key={option.name} class="variant-picker">
              {legend}
              <select
                class="option-select"
                aria-label={option.name}
                value={chosen ?? ''}
                onChange={(event) => pick(option.name, event.currentTarget.value)}
              >
                {chosen === undefined ? <option value="">Choose</option> : null}
                {option.values.map((value) => {
                  const state = valueState(product, variant, option.name, value);
                  const note = STATE_TEXT[state];
                  return (
                    <option key={value} value={value} disabled={state === 'none'}>
                      {note ? `${value} (${note})` : value}
                    </option>
                  );
                })}
              </select>
            </fieldset>
          );
        }
        return (
          <fieldset key={option.name} class="variant-picker">
            {legend}
            {option.values.map((value) => {
              const state = valueState(product, variant, option.name, value);
              const note = STATE_TEXT[state];
              return (
                <label
                  key={value}
                  class={
                    state === 'sold-out'
                      ? 'variant variant-sold-out'
                      : state === 'available'
                        ? 'variant'
                        : 'variant variant-unavailable'
                  }
                >
                  <input
                    type="radio"
                    name={`option-${index}`}
                    value={value}
                    checked={value === chosen}
                    disabled={state === 'none'}
                    onChange={() => pick(option.name, value)}
                  />
                  <span>{value}</span>
                  {note ? <span class="muted"> ({note})</span> : null}
                </label>
              );
            })}
          </fieldset>
        );
      })}
    </div>
  );
}

/** A product id, as old links (`/shop/products/{uuid}`) carry it. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One active product by its handle, in the market of `country`; an earlier handle follows the API's 301 to the current one. */
function byHandle(handle: string, country: string | null): Promise<ClientProduct> {
  return shopApi().request('getProductByHandle', { path: { handle }, query: inCountry(country) });
}

/**
 * A product at `/products/{handle}` (decision `product-handles`). An old link by id, or an earlier handle, shows the same
 * product and its address becomes the current handle's, the query (`?variant=`) kept.
 */
export function ProductPage({ handle }: { handle: string }) {
  const { country } = useMarket();
  const byId = UUID.test(handle);
  const key = marketKey(byId ? `product:${handle}` : `product-handle:${handle}`, country);
  const product = useResource(key, () =>
    byId
      ? // A handle may look like an id too: an id no product has is tried as a handle.
        shopApi()
          .request('getProduct', { path: { id: handle }, query: inCountry(country) })
          .catch((error: unknown) => {
            if (isStatus(error, 404)) return byHandle(handle, country);
            throw error;
          })
      : byHandle(handle, country),
  );
  const current = product.data?.handle;
  useEffect(() => {
    if (!product.data || current === undefined || current === handle) return;
    // Shown at once at its current address (useResource keeps the answer), then read again there.
    remember(marketKey(`product-handle:${current}`, country), product.data);
    const { search, hash } = window.location;
    navigate(`/products/${encodeURIComponent(current)}${search}${hash}`, { replace: true });
  }, [product.data, current, handle, country]);
  useMetaDescription(product.data?.seo.description);

  if (isStatus(product.error, 404) || isStatus(product.error, 400)) return <NotFound what="product" />;
  if (product.error) return <ErrorMessage error={product.error} onRetry={product.reload} />;
  if (!product.data) return <Loading label="Loading the product…" />;
  // Keyed by id: the same product at its new address keeps what the shopper chose.
  return <ProductView key={product.data.id} product={product.data} />;
}

function ProductView({ product }: { product: Product }) {
  const { query } = useLocation();
  const wanted = product.variants.find((variant) => variant.id === query.get('variant'));
  const firstAvailable = product.variants.find((variant) => variant.available > 0) ?? product.variants[0];
  const variant = wanted ?? firstAvailable;
  const [quantity, setQuantity] = useState(1);
  const [adding, setAdding] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);
  const { cart } = useCart();

  if (!variant) return <NotFound what="product" />;
  // What the cart holds of this option counts against what is left: the picker offers only the rest.
  const inCart = cart?.items.find((line) => line.variantId === variant.id)?.quantity ?? 0;
  const left = Math.max(0, variant.available - inCart);
  const maxQuantity = Math.max(1, Math.min(left, 10));
  const chosen = Math.min(quantity, maxQuantity);

  function choose(next: Variant) {
    setResult(null);
    setQuantity(1);
    navigate(`/products/${encodeURIComponent(product.handle)}?variant=${next.id}`, { replace: true });
  }

  async function add(event: Event) {
    event.preventDefault();
    if (!variant) return;
    setAdding(true);
    setResult(null);
    try {
      await cartStore.add(variant.id, chosen, variant.available);
      setResult({
        ok: true,
        message: `Added ${chosen} × ${product.title} (${variant.label}) to your cart.`,
      });
    } catch (error) {
      setResult({
        ok: false,
        message: error instanceof NotEnoughStockError ? error.message : describeError(error),
      });
    } finally {
      setAdding(false);
    }
  }

  const soldOut = variant.available === 0;
  const allInCart = !soldOut && left === 0;
  return (
    <article class="product">
      {product.images && product.images.length > 0 ? (
        <Gallery
          images={product.images}
          title={product.title}
          variantId={variant.id}
          variantImageId={variant.imageId ?? null}
        />
      ) : (
        <ProductImage src={product.image} title={product.title} large />
      )}
      <div class="product-details">
        <PageTitle title={product.seo.title ?? product.title}>{product.title}</PageTitle>
        <p class="product-price">
          <Price
            amount={variant.priceAmount}
            compareAt={variant.compareAtAmount}
            currency={product.currency}
          />
          <PriorPrice
            amount={variant.priceAmount}
            compareAt={variant.compareAtAmount}
            prior={variant.priorPrice}
            currency={product.currency}
            class="product-prior"
          />
        </p>
        {product.giftCard ? (
          <p class="gift-card-note">
            Gift card. Delivered by email — no shipping: its code is mailed to you once your order is paid.
          </p>
        ) : null}
        <form onSubmit={(event) => void add(event)} class="product-form">
          {product.options.length > 0 ? (
            <OptionPicker product={product} variant={variant} onChoose={choose} />
          ) : product.variants.length > 1 ? (
            <fieldset class="variant-picker">
              <legend>Option</legend>
              {product.variants.map((option) => (
                <label
                  key={option.id}
                  class={option.available === 0 ? 'variant variant-sold-out' : 'variant'}
                >
                  <input
                    type="radio"
                    name="variant"
                    value={option.id}
                    checked={option.id === variant.id}
                    onChange={() => choose(option)}
                  />
                  <span>{option.label}</span>
                  {option.available === 0 ? <span class="muted"> (sold out)</span> : null}
                </label>
              ))}
            </fieldset>
          ) : null}
          <p class={soldOut ? 'availability availability-none' : 'availability'}>{availability(variant)}</p>
          {allInCart ? (
            <Notice tone="warning">
              <p>
                Only {variant.available} left; you have {inCart} in your cart.
              </p>
            </Notice>
          ) : inCart > 0 ? (
            <p class="muted">You have {inCart} in your cart.</p>
          ) : null}
          <div class="add-row">
            <label class="quantity-field">
              Quantity
              <select
                value={String(chosen)}
                disabled={soldOut || allInCart}
                onChange={(event) => setQuantity(Number(event.currentTarget.value))}
              >
                {Array.from({ length: maxQuantity }, (_, i) => (
                  <option key={i} value={String(i + 1)}>
                    {i + 1}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" class="button-primary" disabled={soldOut || allInCart || adding}>
              {soldOut ? 'Sold out' : adding ? 'Adding…' : 'Add to cart'}
            </button>
          </div>
        </form>
        <div aria-live="polite">
          {result ? (
            result.ok ? (
              <Notice tone="success">
                <p>
                  {result.message} <Link to="/cart">View cart</Link>
                </p>
              </Notice>
            ) : (
              <div class="notice notice-error" role="alert">
                <p>{result.message}</p>
              </div>
            )
          ) : null}
        </div>
        {product.description ? (
          <section class="product-description" aria-label="Description">
            <Paragraphs text={product.description} />
          </section>
        ) : null}
      </div>
    </article>
  );
}
