/**
 * Pieces shared by the products and collections screens (screens/products/, screens/collections/):
 * the catalog's types (from their data modules), the notice a screen hands the next one, the forms'
 * notice and problem, handles made from titles, the image preview and product summaries. (Their
 * forms' API problems are mapped in ui/problems.ts.)
 */
import { useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { isLive, type AdminProduct, type ProductStatus } from '../data/products.ts';
import { Notice, ProblemBanner } from '../ui/components.tsx';
import { formatMoney } from '../ui/money.ts';
import { unclaimed, type FormProblem } from '../ui/problems.ts';
import { useDebounced } from '../ui/search.tsx';

export type { AdminProduct, AdminVariant, ProductStatus } from '../data/products.ts';
export type { AdminCollection, Condition, Rules } from '../data/collections.ts';

/** A message handed to the next screen through the router's state (after a create or a delete). */
export function useArrivalNotice(): string | null {
  const state = useLocation().state as { notice?: string } | null;
  return state?.notice ?? null;
}

/**
 * A catalog form's messages (product, collection): its success notice, at first the one it arrived
 * with, and its problem, which `fail` shows, focusing the first invalid field, else the banner.
 */
export function useFormMessages() {
  const arrival = useArrivalNotice();
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [notice, setNotice] = useState<string | null>(arrival);
  const banner = useRef<HTMLDivElement>(null);

  function fail(next: FormProblem) {
    setProblem(next);
    setNotice(null);
    // Bring the summary into view; the first invalid field is focused for keyboard users.
    setTimeout(() => {
      const invalid = document.querySelector<HTMLElement>('main [aria-invalid="true"]');
      (invalid ?? banner.current)?.focus();
    });
  }

  return { problem, setProblem, notice, setNotice, fail, banner };
}

/** A catalog form's notice and problem banner, above the form (`shown`: the pointers its fields show). */
export function FormMessages({
  messages: { notice, problem, banner },
  shown,
}: {
  messages: ReturnType<typeof useFormMessages>;
  shown: (pointer: string) => boolean;
}) {
  return (
    <>
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      <div ref={banner} tabIndex={-1} className="banner-anchor">
        <ProblemBanner problem={problem} others={problem ? unclaimed(problem, shown) : []} />
      </div>
    </>
  );
}

export const STATUS_OPTIONS: { value: ProductStatus; label: string }[] = [
  { value: 'draft', label: 'Draft' },
  { value: 'active', label: 'Active' },
  { value: 'archived', label: 'Archived' },
];

/**
 * A handle made from a title, at most `max` characters, as the server makes a product's (decision `product-handles`):
 * accents folded, lower case, every run of other characters one hyphen ("Crème Brûlée — Mug!" →
 * "creme-brulee-mug"); empty when nothing is left.
 */
export function slugify(title: string, max: number): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/, '');
}

/** Whether an image address is one the shop may embed (https, no credentials): the server's rule. */
export function imageProblem(url: string): string | null {
  if (url.trim() === '') return null;
  try {
    const parsed = new URL(url.trim());
    if (parsed.protocol !== 'https:')
      return 'Use an https address: the shop only shows images from secure (https) addresses.';
    if (parsed.username || parsed.password) return 'The address must not contain a user name or password.';
    return null;
  } catch {
    return 'Enter a full address, like https://cdn.example.com/shirt.jpg.';
  }
}

/** A live preview of an image address: the picture when it is https and loads, a message otherwise. */
export function ImagePreview({ url, alt }: { url: string; alt: string }) {
  const settled = useDebounced(url.trim(), 400);
  const [failed, setFailed] = useState<string | null>(null);
  const problem = imageProblem(settled);
  if (settled === '')
    return <p className="image-preview empty muted">No image. Add an https address to show one.</p>;
  if (problem) {
    return (
      <p className="image-preview empty" role="status">
        No preview. {problem}
      </p>
    );
  }
  return (
    <figure className="image-preview">
      {failed === settled ? (
        <p role="status">The image could not be loaded from this address. Check that it is public.</p>
      ) : (
        <img src={settled} alt={alt} onError={() => setFailed(settled)} onLoad={() => setFailed(null)} />
      )}
      <figcaption className="muted">Preview</figcaption>
    </figure>
  );
}

/** An uploaded image's path (decision `media-resize-bound`, `/media/…`): served by this server, resized with `?w=`. */
const MEDIA_PATH = /^\/media\/[^?#]+$/;

/**
 * A small thumbnail for lists (decorative: the title is next to it): an uploaded image's 160 px
 * copy, or an https address.
 */
export function Thumb({ image }: { image: string | null }) {
  if (image && MEDIA_PATH.test(image))
    return <img className="thumb" src={`${image}?w=160`} alt="" loading="lazy" />;
  if (!image || imageProblem(image)) return <span className="thumb placeholder" aria-hidden="true" />;
  return <img className="thumb" src={image} alt="" loading="lazy" />;
}

/** "$12.00", or "$12.00 – $30.00" when the live variants' prices differ, or "—" without any. */
export function priceRange(product: AdminProduct): string {
  const prices = product.variants.filter(isLive).map((v) => v.priceAmount);
  if (prices.length === 0) return '—';
  const low = Math.min(...prices);
  const high = Math.max(...prices);
  const lowText = formatMoney(low, product.currency);
  return low === high ? lowText : `${lowText} – ${formatMoney(high, product.currency)}`;
}

/** "12 available · 2 variants", "Out of stock", "No variants" (archived variants are not counted). */
export function stockSummary(product: AdminProduct): string {
  const live = product.variants.filter(isLive);
  const count = live.length;
  if (count === 0) return 'No variants';
  const available = live.reduce((sum, v) => sum + v.available, 0);
  const variants = `${count} variant${count === 1 ? '' : 's'}`;
  return available === 0 ? `Out of stock · ${variants}` : `${available} available · ${variants}`;
}

export const statusLabel = (status: string): string =>
  STATUS_OPTIONS.find((option) => option.value === status)?.label ?? status;
