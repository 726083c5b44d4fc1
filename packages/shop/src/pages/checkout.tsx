/**
 * Checkout: email, country and a discount code; then a review of the order with its totals (the
 * service prices discount, tax and shipping when it makes the order) and "Pay", which hands the
 * shopper to the payment provider's hosted page.
 */
import { StorefrontError, type Cart, type Checkout } from '@storefront/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, isStatus } from '../api.ts';
import { cartStore, itemsOf, useCart } from '../cart.ts';
import {
  payOnHostedPage,
  placeOrder,
  saveCheckout,
  savedCheckout,
  sendCheckout,
  stillHeld,
} from '../checkout.ts';
import { Link, navigate } from '../router.tsx';
import { Loading, Money, Notice, PageTitle } from '../ui.tsx';

const COUNTRIES = [
  'US',
  'CA',
  'GB',
  'IE',
  'DE',
  'FR',
  'NL',
  'BE',
  'ES',
  'IT',
  'SE',
  'DK',
  'NO',
  'FI',
  'PL',
  'AT',
  'CH',
  'AU',
  'NZ',
  'JP',
];

function countryNames(): (code: string) => string {
  try {
    const names = new Intl.DisplayNames(undefined, { type: 'region' });
    return (code) => names.of(code) ?? code;
  } catch {
    return (code) => code;
  }
}

function defaultCountry(): string {
  const region = /-([A-Z]{2})\b/.exec(navigator.language)?.[1];
  return region && COUNTRIES.includes(region) ? region : 'US';
}

interface FieldProblems {
  email?: string;
  country?: string;
  discountCode?: string;
  form?: string;
  /** The lines short of stock, by name: "Blue mug (Large): only 3 left, you have 6 in your cart". */
  stock?: string[];
}

/**
 * The lines an `insufficient_stock` refusal names (its `errors[]` carry `variantId`, `requested`
 * and `available`), by the names the cart shows them with.
 */
function shortLines(error: StorefrontError, lines: Cart['items']): string[] {
  return error.errors.map((short) => {
    const line = lines.find((candidate) => candidate.variantId === short.variantId);
    const name = line ? `${line.title} (${line.variantLabel})` : 'An item';
    const available = typeof short.available === 'number' ? short.available : 0;
    const requested = typeof short.requested === 'number' ? short.requested : (line?.quantity ?? 0);
    const left = available === 0 ? 'none left' : `only ${available} left`;
    return `${name}: ${left}, you have ${requested} in your cart.`;
  });
}

/** Where the service's refusal belongs: at a field when it names one, else above the form. */
function problemsOf(error: unknown, lines: Cart['items']): FieldProblems {
  if (!(error instanceof StorefrontError)) return { form: describeError(error) };
  if (error.title === 'discount_invalid') return { discountCode: error.detail };
  if (error.title === 'insufficient_stock') {
    return {
      form: 'Some items in your cart are not available in that quantity any more. Nothing was reserved.',
      stock: shortLines(error, lines),
    };
  }
  if (error.title === 'validation_failed') {
    const problems: FieldProblems = {};
    for (const field of error.errors) {
      const name = field.pointer.replace(/^\//, '');
      if (name === 'email' || name === 'country' || name === 'discountCode') problems[name] = field.detail;
      else problems.form = field.detail;
    }
    return problems.email || problems.country || problems.discountCode || problems.form
      ? problems
      : { form: error.detail };
  }
  return { form: describeError(error) };
}

export function CheckoutPage() {
  const { cart, loading } = useCart();
  const [checkout, setCheckout] = useState<Checkout | null>(null);
  const [resuming, setResuming] = useState(() => savedCheckout() !== null);
  const started = useRef(false);

  // With an empty cart, this tab's checkout is the review step reloaded (the cart became its order):
  // the same key and body answer it again. A cart with items (restored, or filled since) goes
  // through the form, which resumes that order when nothing changed (placeOrder).
  useEffect(() => {
    if (!resuming || loading || started.current) return;
    started.current = true;
    const saved = savedCheckout();
    if (!saved || (cart !== null && cart.items.length > 0)) {
      setResuming(false);
      return;
    }
    sendCheckout(saved.body, saved.idempotencyKey).then(
      (answer) => {
        if (stillHeld(answer)) setCheckout(answer);
        else saveCheckout(null);
        setResuming(false);
      },
      () => {
        saveCheckout(null);
        setResuming(false);
      },
    );
  }, [resuming, loading, cart]);

  if (resuming) return <Loading label="Loading your checkout…" />;
  if (checkout) return <Review checkout={checkout} />;
  return <DetailsForm onDone={setCheckout} />;
}

function DetailsForm({ onDone }: { onDone: (checkout: Checkout) => void }) {
  const { cart, loading } = useCart();
  // The details of this tab's last checkout, when the shopper comes back to change the cart.
  const [earlier] = useState(() => savedCheckout()?.body);
  const [email, setEmail] = useState(earlier?.email ?? '');
  const [country, setCountry] = useState(() => earlier?.country ?? defaultCountry());
  const [discountCode, setDiscountCode] = useState(earlier?.discountCode ?? '');
  const [sending, setSending] = useState(false);
  const [problems, setProblems] = useState<FieldProblems>({});
  const names = countryNames();

  if (loading && !cart) return <Loading label="Loading your cart…" />;
  if (!cart || cart.items.length === 0) {
    return (
      <section>
        <PageTitle title="Checkout">Checkout</PageTitle>
        <p>Your cart is empty.</p>
        <p>
          <Link to="/">Continue shopping</Link>
        </p>
      </section>
    );
  }

  async function submit(event: Event) {
    event.preventDefault();
    if (!cart) return;
    const body = {
      cartId: cart.id,
      email: email.trim(),
      country,
      ...(discountCode.trim() ? { discountCode: discountCode.trim() } : {}),
    };
    if (!/^[^\s@]+@[^\s@]+$/.test(body.email)) {
      setProblems({ email: 'Enter your email address, like name@example.com.' });
      document.getElementById('checkout-email')?.focus();
      return;
    }
    setSending(true);
    setProblems({});
    const lines = cart.items;
    try {
      const answer = await placeOrder(body, itemsOf(cart));
      cartStore.forget();
      onDone(answer);
    } catch (error) {
      if (isStatus(error, 409) && error instanceof StorefrontError && error.title !== 'discount_invalid') {
        // The cart moved on (prices, stock, checked out elsewhere): show what it holds now.
        await cartStore.load().catch(() => undefined);
      }
      const found = problemsOf(error, lines);
      setProblems(found);
      const field = found.email ? 'checkout-email' : found.discountCode ? 'checkout-discount' : null;
      if (field) document.getElementById(field)?.focus();
    } finally {
      setSending(false);
    }
  }

  const currency = cart.subtotal.currency;
  return (
    <section class="checkout">
      <PageTitle title="Checkout">Checkout</PageTitle>
      <div class="checkout-columns">
        <form class="checkout-form" onSubmit={(event) => void submit(event)} noValidate>
          {problems.form ? (
            <div class="notice notice-error" role="alert">
              <p>{problems.form}</p>
              {problems.stock ? (
                <ul class="short-lines">
                  {problems.stock.map((line) => (
                    <li key={line}>{line}</li>
                  ))}
                </ul>
              ) : null}
              <p>
                <Link to="/cart">Review your cart</Link>
              </p>
            </div>
          ) : null}
          <div class="field">
            <label for="checkout-email">Email</label>
            <input
              id="checkout-email"
              type="email"
              autoComplete="email"
              required
              value={email}
              aria-invalid={problems.email ? 'true' : undefined}
              aria-describedby={problems.email ? 'checkout-email-problem' : 'checkout-email-hint'}
              onInput={(event) => setEmail(event.currentTarget.value)}
            />
            {problems.email ? (
              <p id="checkout-email-problem" class="field-problem">
                {problems.email}
              </p>
            ) : (
              <p id="checkout-email-hint" class="field-hint">
                For the order confirmation.
              </p>
            )}
          </div>
          <div class="field">
            <label for="checkout-country">Country</label>
            <select
              id="checkout-country"
              autoComplete="country"
              value={country}
              aria-invalid={problems.country ? 'true' : undefined}
              onChange={(event) => setCountry(event.currentTarget.value)}
            >
              {COUNTRIES.map((code) => (
                <option key={code} value={code}>
                  {names(code)}
                </option>
              ))}
            </select>
            {problems.country ? <p class="field-problem">{problems.country}</p> : null}
          </div>
          <div class="field">
            <label for="checkout-discount">Discount code (optional)</label>
            <input
              id="checkout-discount"
              type="text"
              autoComplete="off"
              autoCapitalize="characters"
              maxLength={64}
              value={discountCode}
              aria-invalid={problems.discountCode ? 'true' : undefined}
              aria-describedby={problems.discountCode ? 'checkout-discount-problem' : undefined}
              onInput={(event) => setDiscountCode(event.currentTarget.value)}
            />
            {problems.discountCode ? (
              <p id="checkout-discount-problem" class="field-problem">
                {problems.discountCode}
              </p>
            ) : null}
          </div>
          <button type="submit" class="button-primary" disabled={sending}>
            {sending ? 'Working out your total…' : 'Continue to payment'}
          </button>
        </form>
        <aside class="summary" aria-labelledby="summary-title">
          <h2 id="summary-title">Your order</h2>
          <ul class="summary-lines">
            {cart.items.map((line) => (
              <li key={line.variantId}>
                <span>
                  {line.quantity} × {line.title} <span class="muted">({line.variantLabel})</span>
                </span>
                <Money amount={line.lineTotal.amount} currency={currency} />
              </li>
            ))}
          </ul>
          <p class="summary-subtotal">
            <span>Subtotal</span> <Money amount={cart.subtotal.amount} currency={currency} />
          </p>
          <p class="muted">Discount, tax and shipping are added on the next step.</p>
        </aside>
      </div>
    </section>
  );
}

/** The order's totals as the service priced them. */
export function Totals({ order }: { order: Checkout['order'] }) {
  const currency = order.total.currency;
  return (
    <dl class="totals">
      <div>
        <dt>Subtotal</dt>
        <dd>
          <Money amount={order.subtotal.amount} currency={currency} />
        </dd>
      </div>
      {order.discount.amount > 0 ? (
        <div>
          <dt>Discount{order.discountCode ? ` (${order.discountCode})` : ''}</dt>
          <dd>
            −<Money amount={order.discount.amount} currency={currency} />
          </dd>
        </div>
      ) : null}
      <div>
        <dt>Shipping</dt>
        <dd>
          <Money amount={order.shipping.amount} currency={currency} />
        </dd>
      </div>
      <div>
        <dt>Tax</dt>
        <dd>
          <Money amount={order.tax.amount} currency={currency} />
        </dd>
      </div>
      <div class="totals-total">
        <dt>Total</dt>
        <dd>
          <Money amount={order.total.amount} currency={currency} />
        </dd>
      </div>
    </dl>
  );
}

/** Until when an unpaid order holds its stock for the shopper (a time of day). */
export function HeldUntil({ order }: { order: Pick<Checkout['order'], 'expiresAt'> }) {
  return (
    <time dateTime={order.expiresAt ?? undefined}>
      {order.expiresAt
        ? new Date(order.expiresAt).toLocaleTimeString(undefined, { timeStyle: 'short' })
        : '—'}
    </time>
  );
}

export function OrderLines({ order }: { order: Checkout['order'] }) {
  return (
    <ul class="summary-lines">
      {order.lines.map((line) => (
        <li key={line.variantId}>
          <span>
            {line.quantity} × {line.title} <span class="muted">({line.variantLabel})</span>
          </span>
          <Money amount={line.lineTotal.amount} currency={line.lineTotal.currency} />
        </li>
      ))}
    </ul>
  );
}

function Review({ checkout }: { checkout: Checkout }) {
  const [leaving, setLeaving] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const { order, payment } = checkout;
  const sandbox = payment.provider === 'sandbox';
  return (
    <section class="checkout review">
      <PageTitle title="Review and pay">Review and pay</PageTitle>
      <p>
        Order #{order.number} for {order.email}. It is held for you until <HeldUntil order={order} />.
      </p>
      <OrderLines order={order} />
      <Totals order={order} />
      {sandbox ? (
        <button
          type="button"
          class="button-primary"
          disabled={leaving}
          onClick={() => {
            setLeaving(true);
            payOnHostedPage(checkout);
          }}
        >
          {leaving ? (
            'Opening the payment page…'
          ) : (
            <>
              Pay <Money amount={order.total.amount} currency={order.total.currency} />
            </>
          )}
        </button>
      ) : (
        <Notice tone="warning">
          <p>
            This reference shop pays with the sandbox provider only; this store uses {payment.provider} (see
            docs/shop.md).
          </p>
        </Notice>
      )}
      <p class="muted">
        You confirm the payment on the payment provider&apos;s page; this shop never sees your card.
      </p>
      <p>
        <button
          type="button"
          class="button-link"
          disabled={leaving}
          onClick={() => {
            setLeaving(true);
            setProblem(null);
            // Back to the cart with this order's lines; checking out unchanged resumes this order.
            cartStore.restore(itemsOf(order)).then(
              () => navigate('/cart'),
              (error: unknown) => {
                setLeaving(false);
                setProblem(describeError(error));
              },
            );
          }}
        >
          Return to cart
        </button>
      </p>
      {problem ? (
        <div class="notice notice-error" role="alert">
          <p>{problem}</p>
        </div>
      ) : null}
    </section>
  );
}
