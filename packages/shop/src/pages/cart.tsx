/**
 * The cart: lines, quantities, remove (every change a full replace with If-Match, see cart.ts), and
 * its summary: the subtotal, the promotions that apply and how far free shipping is.
 */
import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../api.ts';
import { CartChangedError, cartStore, useCart } from '../cart.ts';
import { CartSummary } from '../cart-summary.tsx';
import { codeWords, isCodeNotice } from '../promotions.ts';
import { Link } from '../router.tsx';
import { Loading, Money, PageTitle } from '../ui.tsx';
import { CheckoutPage } from './lazy.ts';

export function CartPage() {
  const { cart, loading } = useCart();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<{ changed: boolean; message: string } | null>(null);
  // The checkout's chunk, fetched while the shopper looks at the cart.
  useEffect(() => CheckoutPage.preload(), []);

  async function change(variantId: string, quantity: number) {
    setBusy(true);
    setProblem(null);
    try {
      await cartStore.setQuantity(variantId, Math.max(0, Math.min(999, quantity)));
    } catch (error) {
      setProblem({
        changed: error instanceof CartChangedError,
        message: error instanceof CartChangedError ? error.message : describeError(error),
      });
    } finally {
      setBusy(false);
    }
  }

  const alert = problem ? (
    <div class={problem.changed ? 'notice notice-warning' : 'notice notice-error'} role="alert">
      <p>{problem.message}</p>
    </div>
  ) : null;

  if (loading && !cart) return <Loading label="Loading your cart…" />;
  if (!cart || cart.items.length === 0) {
    return (
      <section class="cart">
        <PageTitle title="Your cart">Your cart</PageTitle>
        {alert}
        <p>Your cart is empty.</p>
        <p>
          <Link to="/">Continue shopping</Link>
        </p>
      </section>
    );
  }

  const currency = cart.subtotal.currency;
  return (
    <section class="cart">
      <PageTitle title="Your cart">Your cart</PageTitle>
      {alert}
      {/* What the last write changed on its own (another market's prices, a method cleared); the
          country selector announces its own. */}
      {cart.notices.map((notice) => (
        <div key={`${notice.code}-${notice.discountCode ?? ''}`} class="notice notice-info">
          <p>
            {isCodeNotice(notice) ? `Code ${notice.discountCode ?? ''}: ${codeWords(notice)}` : notice.detail}
          </p>
        </div>
      ))}
      <ul class="cart-lines" aria-busy={busy}>
        {cart.items.map((line) => {
          const name = `${line.title} (${line.variantLabel})`;
          return (
            <li key={line.variantId} class="cart-line">
              <div class="cart-line-name">
                {/* A line names its product by id (lines carry no handle): the product page shows it at its handle's address. */}
                <Link to={`/products/${line.productId}?variant=${line.variantId}`}>{line.title}</Link>
                <span class="muted">{line.variantLabel}</span>
                <span class="muted">
                  <Money amount={line.unitPrice.amount} currency={currency} /> each
                </span>
              </div>
              <div class="stepper" role="group" aria-label={`Quantity of ${name}`}>
                <button
                  type="button"
                  aria-label={`One less ${name}`}
                  disabled={busy}
                  onClick={() => void change(line.variantId, line.quantity - 1)}
                >
                  −
                </button>
                <output aria-live="polite" aria-label={`Quantity of ${name}`}>
                  {line.quantity}
                </output>
                <button
                  type="button"
                  aria-label={`One more ${name}`}
                  disabled={busy || line.quantity >= 999}
                  onClick={() => void change(line.variantId, line.quantity + 1)}
                >
                  +
                </button>
              </div>
              <span class="cart-line-total">
                <Money amount={line.lineTotal.amount} currency={currency} />
              </span>
              <button
                type="button"
                class="button-link"
                aria-label={`Remove ${name}`}
                disabled={busy}
                onClick={() => void change(line.variantId, 0)}
              >
                Remove
              </button>
            </li>
          );
        })}
      </ul>
      <CartSummary
        cart={cart}
        note="Shipping and tax are worked out at checkout, where you can add a discount code."
      />
      <p class="cart-actions">
        <Link to="/checkout" class="button-primary">
          Check out
        </Link>
      </p>
    </section>
  );
}
