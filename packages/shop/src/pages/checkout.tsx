/**
 * Checkout in three steps any shopper knows (D40): contact and address (a form that follows the
 * country), the shipping method with prices and delivery estimates, and a review with the totals
 * the service will charge (the cart's preview), then the payment provider's hosted page. Each step
 * writes to the cart (its address, method and code, under If-Match), so a reload, another tab and
 * the service all see the same choices. What the shopper typed is kept on this browser for the
 * next visit.
 */
import { checkAddress, formatAddress, isPhoneNumber } from '@storefront/address';
import { deliveryEstimate } from '@storefront/blocks';
import {
  StorefrontError,
  type Cart,
  type Checkout,
  type CustomerAddress,
  type ShippingOption,
} from '@storefront/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, isStatus } from '../api.ts';
import { CartChangedError, cartStore, itemsOf, useCart } from '../cart.ts';
import {
  choicesOf,
  payOnHostedPage,
  placeOrder,
  saveCheckout,
  saveDetails,
  savedCheckout,
  savedDetails,
  sendCheckout,
  stillHeld,
} from '../checkout.ts';
import { defaultAddress, useCustomer } from '../customer.ts';
import { Link, navigate } from '../router.tsx';
import { Loading, Money, Notice, PageTitle } from '../ui.tsx';
import {
  AddressFields,
  addressInput,
  browserCountry,
  countryName,
  draftOf,
  emptyAddress,
  problemsAfterEdit,
  type AddressDraft,
  type AddressField,
  type AddressProblems,
} from './address-form.tsx';

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

/** A refusal shown above a step's form, with the lines short of stock when that was the reason. */
interface FormProblem {
  message: string;
  stock?: string[];
}

function FormProblemNotice({ problem }: { problem: FormProblem | null }) {
  if (!problem) return null;
  return (
    <div class="notice notice-error" role="alert">
      <p>{problem.message}</p>
      {problem.stock ? (
        <ul class="short-lines">
          {problem.stock.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
      <p>
        <Link to="/cart">Review your cart</Link>
      </p>
    </div>
  );
}

export function CheckoutPage() {
  const { cart, loading } = useCart();
  const customer = useCustomer();
  const [checkout, setCheckout] = useState<Checkout | null>(null);
  const [resuming, setResuming] = useState(() => savedCheckout() !== null);
  const started = useRef(false);

  // With an empty cart, this tab's checkout is the review step reloaded (the cart became its order):
  // the same key and body answer it again. A cart with items (restored, or filled since) goes
  // through the steps, which resume that order when nothing changed (placeOrder).
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
  // A signed-in customer's form starts from their account: wait for it (briefly) to fill it in.
  if (customer.signedIn && customer.loading && !customer.customer)
    return <Loading label="Loading your details…" />;
  return <Steps onDone={setCheckout} />;
}

type Step = 'details' | 'shipping' | 'review';
const STEPS: { step: Step; label: string }[] = [
  { step: 'details', label: 'Contact and address' },
  { step: 'shipping', label: 'Shipping' },
  { step: 'review', label: 'Review and pay' },
];

/** Where the shopper is, with the steps behind them as buttons back. */
function StepList({
  current,
  onGo,
  skipShipping,
}: {
  current: Step;
  onGo: (step: Step) => void;
  skipShipping: boolean;
}) {
  const at = STEPS.findIndex((entry) => entry.step === current);
  return (
    <ol class="checkout-steps" aria-label="Checkout steps">
      {STEPS.map((entry, index) => {
        const label = `${index + 1}. ${entry.label}`;
        const skipped = entry.step === 'shipping' && skipShipping;
        return (
          <li
            key={entry.step}
            aria-current={index === at ? 'step' : undefined}
            class={index === at ? 'current' : undefined}
          >
            {index < at && !skipped ? (
              <button type="button" class="button-link" onClick={() => onGo(entry.step)}>
                {label}
              </button>
            ) : (
              <span>{label}</span>
            )}
          </li>
        );
      })}
    </ol>
  );
}

function focusSoon(id: string) {
  window.requestAnimationFrame(() => document.getElementById(id)?.focus());
}

export { deliveryEstimate };

/** The saved address the form holds, if it holds one exactly (the picker shows it chosen). */
function savedAddressMatching(addresses: readonly CustomerAddress[], draft: AddressDraft): string {
  const same = (a: AddressDraft) =>
    (Object.keys(a) as AddressField[]).every((field) => a[field] === draft[field]);
  return addresses.find((saved) => same(draftOf(saved)))?.id ?? '';
}

function Steps({ onDone }: { onDone: (checkout: Checkout) => void }) {
  const { cart, loading } = useCart();
  const session = useCustomer();
  const account = session.customer;
  const saved = session.addresses ?? [];
  const [details] = useState(() => savedDetails());
  const [step, setStep] = useState<Step>('details');
  // Signed in: the account's email, phone and default address; else what this browser kept.
  const [email, setEmail] = useState(account?.email ?? details?.email ?? savedCheckout()?.body.email ?? '');
  const [phone, setPhone] = useState(details?.phone || account?.phone || '');
  const [address, setAddress] = useState<AddressDraft>(() => {
    const from = cart?.shippingAddress ?? defaultAddress(session.addresses) ?? details?.address;
    return from ? draftOf(from) : emptyAddress(browserCountry() ?? 'US');
  });
  const [options, setOptions] = useState<ShippingOption[] | null>(null);
  const [methodId, setMethodId] = useState<string | null>(cart?.shippingMethod?.id ?? null);
  const [discountCode, setDiscountCode] = useState('');
  const [sending, setSending] = useState(false);
  const [fields, setFields] = useState<
    AddressProblems & { email?: string; phone?: string; discountCode?: string }
  >({});
  const [problem, setProblem] = useState<FormProblem | null>(null);

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
  const skipShipping = options !== null && options.length === 0;

  function go(next: Step) {
    setProblem(null);
    setFields({});
    setStep(next);
    focusSoon('checkout-step-title');
  }

  /** A refusal: at the field it names when it names one, else above the form. */
  function refused(error: unknown, lines: Cart['items']) {
    if (error instanceof CartChangedError) {
      setProblem({ message: error.message });
      return;
    }
    if (error instanceof StorefrontError && error.title === 'validation_failed') {
      const found: Record<string, string> = {};
      for (const field of error.errors) {
        const name = field.pointer.replace(/^\/(shippingAddress\/)?/, '');
        found[name] = field.detail;
      }
      setFields(found);
      const first = Object.keys(found)[0];
      if (first) focusSoon(first === 'email' || first === 'phone' ? `checkout-${first}` : `ship-${first}`);
      return;
    }
    if (isStatus(error, 401)) {
      // The customer's session ended (the client forgot the token): the shopper is a guest now.
      setProblem({ message: 'You were signed out. Sign in again, or check out as a guest.' });
      return;
    }
    if (error instanceof StorefrontError && error.title === 'discount_invalid') {
      setFields({ discountCode: error.detail });
      focusSoon('checkout-discount');
      return;
    }
    if (error instanceof StorefrontError && error.title === 'insufficient_stock') {
      setProblem({
        message: 'Some items in your cart are not available in that quantity any more. Nothing was reserved.',
        stock: shortLines(error, lines),
      });
      return;
    }
    setProblem({ message: describeError(error) });
  }

  async function submitDetails(event: Event) {
    event.preventDefault();
    const found: typeof fields = {};
    if (!/^[^\s@]+@[^\s@]+$/.test(email.trim()))
      found.email = 'Enter your email address, like name@example.com.';
    if (phone.trim() !== '' && !isPhoneNumber(phone.trim()))
      found.phone = 'Enter a phone number: digits, spaces and + ( ) . -';
    const input = addressInput(address);
    for (const { pointer, detail } of checkAddress(input).problems)
      found[pointer.slice(1) as AddressField] = detail;
    if (Object.keys(found).length > 0) {
      setFields(found);
      const first = Object.keys(found)[0]!;
      focusSoon(first === 'email' || first === 'phone' ? `checkout-${first}` : `ship-${first}`);
      return;
    }
    setSending(true);
    setFields({});
    setProblem(null);
    try {
      const addressed = await cartStore.setShippingAddress(input);
      saveDetails({ email: email.trim(), phone: phone.trim(), address: input });
      if (addressed.notices.some((notice) => notice.code === 'shipping_unavailable')) {
        setFields({
          country: `We do not ship to ${countryName(address.country)} yet. Choose another address.`,
        });
        focusSoon('ship-country');
        return;
      }
      const offered = await cartStore.shippingOptions();
      setOptions(offered);
      const kept = offered.find((option) => option.id === addressed.shippingMethod?.id);
      setMethodId(kept?.id ?? offered[0]?.id ?? null);
      go(offered.length === 0 ? 'review' : 'shipping');
    } catch (error) {
      refused(error, cart!.items);
    } finally {
      setSending(false);
    }
  }

  /** The method stopped fitting (turned off, the cart changed): the options as they are now. */
  async function chooseAgain() {
    setOptions(await cartStore.shippingOptions().catch(() => []));
    go('shipping');
    setProblem({ message: 'That shipping method is not available for this order any more. Choose another.' });
  }

  async function submitShipping(event: Event) {
    event.preventDefault();
    if (!methodId) return;
    setSending(true);
    setProblem(null);
    try {
      await cartStore.setShippingMethod(methodId);
      go('review');
    } catch (error) {
      if (error instanceof StorefrontError && error.title === 'shipping_method_unavailable')
        await chooseAgain();
      else refused(error, cart!.items);
    } finally {
      setSending(false);
    }
  }

  async function applyCode(code: string | null) {
    setSending(true);
    setFields({});
    setProblem(null);
    try {
      await cartStore.setDiscountCode(code);
      setDiscountCode('');
    } catch (error) {
      refused(error, cart!.items);
    } finally {
      setSending(false);
    }
  }

  async function pay() {
    if (!cart) return;
    setSending(true);
    setProblem(null);
    const lines = cart.items;
    const previewed = cart.totals.total.amount;
    try {
      // Signed in, the client sends the customer's token too: the order is theirs (D44).
      const body = { cartId: cart.id, email: email.trim(), ...(phone.trim() ? { phone: phone.trim() } : {}) };
      const answer = await placeOrder(body, itemsOf(cart), choicesOf(cart));
      cartStore.forget();
      // The service charged what the review showed: straight to the provider's page. When a price
      // or a rate changed meanwhile, the order's own review says what it costs now.
      if (answer.order.total.amount === previewed && answer.payment.provider === 'sandbox')
        payOnHostedPage(answer);
      else {
        setSending(false);
        onDone(answer);
      }
    } catch (error) {
      setSending(false);
      if (isStatus(error, 409) && error instanceof StorefrontError && error.title !== 'discount_invalid') {
        // The cart moved on (prices, stock, a method, checked out elsewhere): show what it holds now.
        await cartStore.load().catch(() => undefined);
      }
      if (error instanceof StorefrontError && error.title === 'shipping_method_unavailable')
        await chooseAgain();
      else refused(error, lines);
    }
  }

  const currency = cart.subtotal.currency;
  const title = STEPS.find((entry) => entry.step === step)!.label;
  return (
    <section class="checkout">
      <PageTitle title="Checkout">Checkout</PageTitle>
      <StepList current={step} onGo={go} skipShipping={skipShipping} />
      <div class="checkout-columns">
        <div class="checkout-form">
          <h2 id="checkout-step-title" tabIndex={-1}>
            {title}
          </h2>
          <FormProblemNotice problem={problem} />
          {step === 'details' ? (
            <form onSubmit={(event) => void submitDetails(event)} noValidate>
              <fieldset>
                <legend>Contact</legend>
                {account ? null : (
                  <p class="sign-in-hint">
                    Have an account?{' '}
                    <Link to={`/account/sign-in?next=${encodeURIComponent('/checkout')}`}>Sign in</Link> to
                    use your saved addresses.
                  </p>
                )}
                <ContactField
                  id="checkout-email"
                  label="Email"
                  type="email"
                  autoComplete="email"
                  value={email}
                  readOnly={account !== null}
                  onInput={(value) => {
                    setEmail(value);
                    setFields(({ email: _email, ...rest }) => rest);
                  }}
                  problem={fields.email}
                  hint={
                    account
                      ? 'You are signed in: the order is saved in your account.'
                      : 'For the order confirmation.'
                  }
                />
                <ContactField
                  id="checkout-phone"
                  label="Phone (optional)"
                  type="tel"
                  autoComplete="tel"
                  value={phone}
                  onInput={(value) => {
                    setPhone(value);
                    setFields(({ phone: _phone, ...rest }) => rest);
                  }}
                  problem={fields.phone}
                  hint="For the carrier, if they need to reach you."
                />
              </fieldset>
              <fieldset>
                <legend>Shipping address</legend>
                {saved.length > 0 ? (
                  <div class="field">
                    <label for="checkout-saved-address">Saved addresses</label>
                    <select
                      id="checkout-saved-address"
                      value={savedAddressMatching(saved, address)}
                      onChange={(event) => {
                        const chosen = saved.find((entry) => entry.id === event.currentTarget.value);
                        setFields({});
                        setAddress(chosen ? draftOf(chosen) : emptyAddress(address.country));
                      }}
                    >
                      {saved.map((entry) => (
                        <option key={entry.id} value={entry.id}>
                          {formatAddress(entry).join(', ')}
                          {entry.isDefault ? ' (default)' : ''}
                        </option>
                      ))}
                      <option value="">A new address</option>
                    </select>
                  </div>
                ) : null}
                <AddressFields
                  value={address}
                  onChange={(next) => {
                    setFields((current) => problemsAfterEdit(current, address, next));
                    setAddress(next);
                  }}
                  problems={fields}
                  idPrefix="ship"
                />
              </fieldset>
              <button type="submit" class="button-primary" disabled={sending}>
                {sending ? 'Saving…' : 'Continue to shipping'}
              </button>
            </form>
          ) : null}
          {step === 'shipping' && options ? (
            <form onSubmit={(event) => void submitShipping(event)}>
              <fieldset class="shipping-options">
                <legend>Shipping method</legend>
                {options.map((option) => {
                  const estimate = deliveryEstimate(option);
                  return (
                    <label key={option.id} class="shipping-option">
                      <input
                        type="radio"
                        name="shipping-method"
                        value={option.id}
                        checked={methodId === option.id}
                        onChange={() => setMethodId(option.id)}
                      />
                      <span class="shipping-option-name">
                        {option.name}
                        {estimate ? <span class="muted"> · {estimate}</span> : null}
                      </span>
                      <span class="shipping-option-price">
                        {option.amount.amount === 0 ? (
                          'Free'
                        ) : (
                          <Money amount={option.amount.amount} currency={option.amount.currency} />
                        )}
                      </span>
                    </label>
                  );
                })}
              </fieldset>
              <button type="submit" class="button-primary" disabled={sending || !methodId}>
                {sending ? 'Saving…' : 'Continue to review'}
              </button>
            </form>
          ) : null}
          {step === 'review' ? (
            <div class="review-step">
              <dl class="review-choices">
                <div>
                  <dt>Contact</dt>
                  <dd>
                    {email}
                    {phone ? <>, {phone}</> : null}
                  </dd>
                  <dd>
                    <button type="button" class="button-link" onClick={() => go('details')}>
                      Change <span class="visually-hidden">contact</span>
                    </button>
                  </dd>
                </div>
                {cart.shippingAddress ? (
                  <div>
                    <dt>Ship to</dt>
                    <dd>
                      <address>
                        {formatAddress(cart.shippingAddress).map((line) => (
                          <span key={line} class="address-line">
                            {line}
                          </span>
                        ))}
                      </address>
                    </dd>
                    <dd>
                      <button type="button" class="button-link" onClick={() => go('details')}>
                        Change <span class="visually-hidden">address</span>
                      </button>
                    </dd>
                  </div>
                ) : null}
                {cart.shippingMethod ? (
                  <div>
                    <dt>Shipping method</dt>
                    <dd>
                      {cart.shippingMethod.name}
                      {deliveryEstimate(cart.shippingMethod)
                        ? ` · ${deliveryEstimate(cart.shippingMethod)}`
                        : ''}
                    </dd>
                    <dd>
                      <button type="button" class="button-link" onClick={() => go('shipping')}>
                        Change <span class="visually-hidden">shipping method</span>
                      </button>
                    </dd>
                  </div>
                ) : null}
              </dl>
              {cart.notices.map((notice) => (
                <Notice key={notice.code} tone="warning">
                  <p>{notice.detail}</p>
                </Notice>
              ))}
              <form
                class="discount-form"
                onSubmit={(event) => {
                  event.preventDefault();
                  if (discountCode.trim()) void applyCode(discountCode.trim());
                }}
              >
                <div class="field">
                  <label for="checkout-discount">Discount code (optional)</label>
                  <div class="inline-field">
                    <input
                      id="checkout-discount"
                      type="text"
                      autoComplete="off"
                      autoCapitalize="characters"
                      maxLength={64}
                      value={discountCode}
                      aria-invalid={fields.discountCode ? 'true' : undefined}
                      aria-describedby={fields.discountCode ? 'checkout-discount-problem' : undefined}
                      onInput={(event) => setDiscountCode(event.currentTarget.value)}
                    />
                    <button type="submit" class="button-secondary" disabled={sending}>
                      Apply
                    </button>
                  </div>
                  {fields.discountCode ? (
                    <p id="checkout-discount-problem" class="field-problem">
                      {fields.discountCode}
                    </p>
                  ) : null}
                </div>
                {cart.discountCode ? (
                  <p>
                    Code {cart.discountCode} applied.{' '}
                    <button
                      type="button"
                      class="button-link"
                      disabled={sending}
                      onClick={() => void applyCode(null)}
                    >
                      Remove <span class="visually-hidden">code {cart.discountCode}</span>
                    </button>
                  </p>
                ) : null}
              </form>
              <CartTotals cart={cart} />
              <button type="button" class="button-primary" disabled={sending} onClick={() => void pay()}>
                {sending ? (
                  'Opening the payment page…'
                ) : (
                  <>
                    Pay <Money amount={cart.totals.total.amount} currency={currency} />
                  </>
                )}
              </button>
              <p class="muted">
                You confirm the payment on the payment provider&apos;s page; this shop never sees your card.
              </p>
            </div>
          ) : null}
        </div>
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
          {step === 'review' ? null : (
            <>
              <p class="summary-subtotal">
                <span>Subtotal</span> <Money amount={cart.subtotal.amount} currency={currency} />
              </p>
              <p class="muted">Shipping and tax are worked out from your address.</p>
            </>
          )}
        </aside>
      </div>
    </section>
  );
}

function ContactField(props: {
  id: string;
  label: string;
  type: 'email' | 'tel';
  autoComplete: string;
  value: string;
  readOnly?: boolean;
  onInput: (value: string) => void;
  problem: string | undefined;
  hint: string;
}) {
  const attributes = {
    id: props.id,
    autoComplete: props.autoComplete,
    value: props.value,
    readOnly: props.readOnly,
    'aria-invalid': props.problem ? ('true' as const) : undefined,
    'aria-describedby': props.problem ? `${props.id}-problem` : `${props.id}-hint`,
    onInput: (event: { currentTarget: HTMLInputElement }) => props.onInput(event.currentTarget.value),
  };
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.type === 'email' ? <input type="email" {...attributes} /> : <input type="tel" {...attributes} />}
      {props.problem ? (
        <p id={`${props.id}-problem`} class="field-problem">
          {props.problem}
        </p>
      ) : (
        <p id={`${props.id}-hint`} class="field-hint">
          {props.hint}
        </p>
      )}
    </div>
  );
}

/** The cart's totals preview: what the checkout will charge when nothing changes. */
function CartTotals({ cart }: { cart: Cart }) {
  const { totals } = cart;
  return (
    <TotalsList
      currency={totals.total.currency}
      subtotal={totals.subtotal.amount}
      discount={totals.discount.amount}
      discountCode={cart.discountCode}
      shipping={totals.shipping.amount}
      tax={totals.tax.amount}
      total={totals.total.amount}
    />
  );
}

function TotalsList(props: {
  currency: string;
  subtotal: number;
  discount: number;
  discountCode: string | null;
  shipping: number;
  tax: number;
  total: number;
}) {
  const { currency } = props;
  return (
    <dl class="totals">
      <div>
        <dt>Subtotal</dt>
        <dd>
          <Money amount={props.subtotal} currency={currency} />
        </dd>
      </div>
      {props.discount > 0 ? (
        <div>
          <dt>Discount{props.discountCode ? ` (${props.discountCode})` : ''}</dt>
          <dd>
            −<Money amount={props.discount} currency={currency} />
          </dd>
        </div>
      ) : null}
      <div>
        <dt>Shipping</dt>
        <dd>
          <Money amount={props.shipping} currency={currency} />
        </dd>
      </div>
      <div>
        <dt>Tax</dt>
        <dd>
          <Money amount={props.tax} currency={currency} />
        </dd>
      </div>
      <div class="totals-total">
        <dt>Total</dt>
        <dd>
          <Money amount={props.total} currency={currency} />
        </dd>
      </div>
    </dl>
  );
}

/** The order's totals as the service priced them. */
export function Totals({ order }: { order: Checkout['order'] }) {
  return (
    <TotalsList
      currency={order.total.currency}
      subtotal={order.subtotal.amount}
      discount={order.discount.amount}
      discountCode={order.discountCode}
      shipping={order.shipping.amount}
      tax={order.tax.amount}
      total={order.total.amount}
    />
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
